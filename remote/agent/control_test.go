package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
)

// fakeController records what Serve let through.
type fakeController struct {
	intervals []time.Duration
	census    []bool
	applied   [][]tuning.Change
	persisted [][]tuning.Change
	undone    int
}

func (f *fakeController) SetInterval(d time.Duration) { f.intervals = append(f.intervals, d) }
func (f *fakeController) SetCensus(on bool)           { f.census = append(f.census, on) }
func (f *fakeController) Read() (tuning.KnobState, error) {
	return tuning.KnobState{Current: map[string]string{knob.Max: "4096"}, EntryBytes: 256, Global: true}, nil
}
func (f *fakeController) Apply(c []tuning.Change, _ uint64) ([]knob.Result, error) {
	f.applied = append(f.applied, c)
	return nil, nil
}
func (f *fakeController) Persist(c []tuning.Change) ([]string, []string, error) {
	f.persisted = append(f.persisted, c)
	return nil, nil, nil
}
func (f *fakeController) Undo() ([]knob.Result, error) { f.undone++; return nil, nil }

// serve runs Serve over input with a fake controller and returns it, the
// replies and the warnings.
func serve(t *testing.T, input string, writable bool) (*fakeController, []Reply, string, error) {
	t.Helper()
	c := &fakeController{}
	replies, warn, err := serveTo(t, c, input, writable)
	return c, replies, warn, err
}

// serveTo runs Serve over input with c and returns the replies and the
// warnings.
func serveTo(t *testing.T, c Controller, input string, writable bool) ([]Reply, string, error) {
	t.Helper()
	var replies []Reply
	var warn bytes.Buffer
	err := Serve(strings.NewReader(input), c, writable, func(ev stream.Event) error {
		var r Reply
		if err := json.Unmarshal([]byte(ev.Text), &r); err != nil {
			t.Fatalf("reply %q: %v", ev.Text, err)
		}
		replies = append(replies, r)
		return nil
	}, &warn)
	return replies, warn.String(), err
}

// TestServeRefusesHostileChanges: the review's persist requests (a
// foreign key, a newline smuggling a second sysctl, a modprobe install
// line) reach neither Persist nor Apply; a valid one arrives re-rendered.
func TestServeRefusesHostileChanges(t *testing.T) {
	hostile := []string{
		`{"op":"persist","id":1,"confirm":true,"changes":[{"key":"kernel.core_pattern","proposed":"|/tmp/pwn %p"}]}`,
		`{"op":"persist","id":2,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"1\nkernel.modprobe = /tmp/evil"}]}`,
		`{"op":"persist","id":3,"confirm":true,"changes":[{"key":"nf_conntrack.hashsize","proposed":"1\ninstall nf_conntrack /bin/sh -c 'id > /tmp/owned'"}]}`,
		`{"op":"apply","id":4,"confirm":true,"changes":[{"key":"kernel.core_pattern","proposed":"|/tmp/pwn"}]}`,
		`{"op":"persist","id":5,"confirm":true}`,
	}
	c, replies, _, err := serve(t, strings.Join(hostile, "\n")+"\n", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.persisted)+len(c.applied) != 0 {
		t.Fatalf("hostile changes got through: persisted %v applied %v", c.persisted, c.applied)
	}
	if len(replies) != len(hostile) {
		t.Fatalf("got %d replies, want %d", len(replies), len(hostile))
	}
	for i, r := range replies {
		if r.ID != int64(i+1) || !strings.Contains(r.Error, "bad request") {
			t.Errorf("reply %d: %+v, want a bad-request error", i, r)
		}
	}

	c, replies, _, err = serve(t, `{"op":"persist","id":7,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":" 0032768 ","why":"\u001b]52;c;x\u0007"}]}`+"\n", true)
	if err != nil || len(replies) != 1 || replies[0].Error != "" {
		t.Fatalf("valid persist: %v %+v", err, replies)
	}
	want := tuning.Change{Key: knob.Max, Proposed: "32768"}
	if len(c.persisted) != 1 || len(c.persisted[0]) != 1 || c.persisted[0][0].Key != want.Key || c.persisted[0][0].Proposed != want.Proposed ||
		c.persisted[0][0].Current != "" || c.persisted[0][0].Why.Text() != "" {
		t.Errorf("persisted %+v, want exactly %+v", c.persisted, want)
	}
}

// TestServeReadOnly: without root, or without confirm, nothing changes.
func TestServeReadOnly(t *testing.T) {
	apply := `{"op":"apply","id":1,"confirm":true,"changes":[{"key":"net.netfilter.nf_conntrack_max","proposed":"8192"}]}` + "\n"
	c, replies, _, _ := serve(t, apply+`{"op":"undo","id":2,"confirm":true}`+"\n", false)
	if len(c.applied) != 0 || c.undone != 0 || len(replies) != 2 || !strings.Contains(replies[0].Error, "read-only") {
		t.Errorf("an agent that may not write: applied %v undone %d replies %+v", c.applied, c.undone, replies)
	}
	c, replies, _, _ = serve(t, strings.Replace(apply, `"confirm":true,`, "", 1), true)
	if len(c.applied) != 0 || len(replies) != 1 || !strings.Contains(replies[0].Error, "read-only") {
		t.Errorf("without confirm: applied %v replies %+v", c.applied, replies)
	}
	c, replies, _, _ = serve(t, `{"op":"knobs","id":3}`, false)
	if len(replies) != 1 || replies[0].Knobs == nil || replies[0].Knobs.Current[knob.Max] != "4096" || !replies[0].Knobs.Global {
		t.Errorf("knobs (last line without a newline): %+v", replies)
	}
	_ = c
}

// TestServeJunk: junk lines are skipped with a note; an interval out of
// bounds is refused; oversized input or junk without newlines is an
// error, never a silent clean end.
func TestServeJunk(t *testing.T) {
	c, replies, warn, err := serve(t, "not json\n{\"op\":\"interval\",\"ms\":5}\n{\"op\":\"interval\",\"ms\":-1}\n{\"op\":\"reboot\"}\n{\"op\":\"interval\",\"ms\":500}\n{\"op\":\"census\",\"on\":true}\n{\"op\":\"stop\"}\n{\"op\":\"census\",\"on\":false}\n", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.intervals) != 1 || c.intervals[0] != 500*time.Millisecond {
		t.Errorf("intervals %v, want only 500ms", c.intervals)
	}
	if len(c.census) != 1 || !c.census[0] {
		t.Errorf("census %v: want one, before stop", c.census)
	}
	if len(replies) != 0 || strings.Count(warn, "skipped") != 4 {
		t.Errorf("replies %+v; warnings:\n%s", replies, warn)
	}

	for name, in := range map[string]io.Reader{
		"zeros without a newline": io.LimitReader(zeros{}, 1<<20),
		"one long line":           strings.NewReader(`{"op":"knobs","id":1,"x":"` + strings.Repeat("a", MaxRequest) + "\"}\n"),
	} {
		err := Serve(in, &fakeController{}, true, func(stream.Event) error { return nil }, io.Discard)
		if !errors.Is(err, ErrRequestTooLong) {
			t.Errorf("%s: got %v, want ErrRequestTooLong", name, err)
		}
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// TestRecordedActionsReadAsAnswered: a recording keeps a tuning action
// as the agent answers it: the same event types, and a reply's results
// read by the recording's parser.
func TestRecordedActionsReadAsAnswered(t *testing.T) {
	if string(OpApply) != recording.EventApply || string(OpUndo) != recording.EventUndo {
		t.Errorf("ops %q and %q, recorded as %q and %q", OpApply, OpUndo, recording.EventApply, recording.EventUndo)
	}
	want := []knob.Result{{Key: knob.Max, Before: "4096", Wanted: "65536", After: "65536", Verified: true}}
	b, err := json.Marshal(Reply{ID: 3, Results: want})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := recording.ParseTuned(string(b)); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("a reply read as a recorded action: %+v %v", got, ok)
	}
}
