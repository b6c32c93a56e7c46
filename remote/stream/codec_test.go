package stream

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/remote/stream/streamtest"
)

var (
	t0           = streamtest.T0
	twoCPUSample = streamtest.TwoCPUSample
)

func TestRoundTrip(t *testing.T) {
	host := model.Host{Name: "garage", Kernel: "5.15.0", CPUs: 2, MemTotal: 512 << 20, Source: "local"}
	var buf bytes.Buffer
	enc, err := NewEncoder(&buf, host, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Sample{twoCPUSample(0), twoCPUSample(1), {Time: t0.Add(2 * time.Second), Conntrack: model.Conntrack{Status: model.TableNoModule}}}
	want[2].CTStats.Note = "nf_conntrack is not loaded"
	for i, s := range want {
		if err := enc.Sample(s); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			enc.Event(Event{Time: t0, Type: "episode", Text: "pinned at 4,096"})
		}
	}
	dec := NewDecoder(&buf)
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(dec.Host, host) || !dec.Started.Equal(t0) {
		t.Errorf("header %+v %v, want %+v %v", dec.Host, dec.Started, host, t0)
	}
	var got []model.Sample
	var events []Event
	for {
		s, ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if s != nil {
			got = append(got, *s)
		} else {
			events = append(events, *ev)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if !g.Time.Equal(w.Time) {
			t.Errorf("sample %d time %v, want %v", i, g.Time, w.Time)
		}
		g.Time, w.Time = time.Time{}, time.Time{}
		w.KernelRelease = host.Kernel // the header's, given every sample
		for j := range g.Kernel.Lines {
			if !g.Kernel.Lines[j].Time.Equal(w.Kernel.Lines[j].Time) {
				t.Errorf("kernel line time %v, want %v", g.Kernel.Lines[j].Time, w.Kernel.Lines[j].Time)
			}
			g.Kernel.Lines[j].Time, w.Kernel.Lines[j].Time = time.Time{}, time.Time{}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("sample %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if len(events) != 1 || events[0].Type != "episode" || !events[0].Time.Equal(t0) {
		t.Errorf("events %+v", events)
	}
}

func TestDecoderErrors(t *testing.T) {
	var good bytes.Buffer
	enc, _ := NewEncoder(&good, model.Host{Name: "h"}, t0)
	enc.Sample(twoCPUSample(0))
	enc.Sample(twoCPUSample(1))
	stream := good.String()
	lines := strings.SplitAfter(stream, "\n")

	tests := []struct {
		name      string
		in        string
		headerErr error
		wantN     int
		damaged   int
		torn      bool
	}{
		{"not a stream", "hello world\n", ErrNotStream, 0, 0, false},
		{"empty", "", ErrNotStream, 0, 0, false},
		{"newer version", `{"tablefull":"stream","v":2,"host":{}}` + "\n", ErrNewerVersion, 0, 0, false},
		{"version 0", `{"tablefull":"stream","v":0,"host":{}}` + "\n", ErrNotStream, 0, 0, false},
		{"no version", `{"tablefull":"stream","host":{}}` + "\n", ErrNotStream, 0, 0, false},
		{"negative version", `{"tablefull":"stream","v":-1,"host":{}}` + "\n", ErrNotStream, 0, 0, false},
		{"torn last line", stream[:len(stream)-20], nil, 1, 0, true},
		{"garbage line", lines[0] + lines[1] + "\x00\x01garbage\n" + lines[2], nil, 2, 1, false},
		{"wrong shape", lines[0] + `{"k":"s","t":1,"cpu":[[0,1]]}` + "\n", nil, 0, 1, false},
		{"unknown fields and kinds are skipped", strings.Replace(lines[0], `"v":1`, `"v":1,"future":true`, 1) +
			`{"k":"hologram","x":1}` + "\n" + strings.Replace(lines[1], `"k":"s"`, `"k":"s","newfield":[1,2]`, 1), nil, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.in))
			err := d.Header()
			if tt.headerErr != nil {
				if !errors.Is(err, tt.headerErr) {
					t.Fatalf("header error %v, want %v", err, tt.headerErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var told []error
			d.OnDamaged = func(err error) { told = append(told, err) }
			n := 0
			for range 10 {
				s, _, err := d.Next()
				if err != nil {
					if err != io.EOF {
						t.Fatalf("got %v, want damaged lines skipped and io.EOF at the end", err)
					}
					break
				}
				if s != nil {
					n++
				}
			}
			if n != tt.wantN || d.Damaged != tt.damaged || len(told) != tt.damaged {
				t.Errorf("read %d samples, %d damaged (%d told); want %d and %d", n, d.Damaged, len(told), tt.wantN, tt.damaged)
			}
			for _, err := range told {
				if !errors.Is(err, ErrGarbage) || !strings.Contains(err.Error(), "line ") {
					t.Errorf("a damaged line is told as %v, want ErrGarbage with its line", err)
				}
			}
			if (d.Torn != nil) != tt.torn || (tt.torn && !errors.Is(d.Torn, ErrTruncated)) {
				t.Errorf("torn %v, want %v", d.Torn, tt.torn)
			}
		})
	}
}

// BenchmarkSampleBytes reports the size of one 2-CPU sample on the wire
// (goal ≤ 1 KB).
func BenchmarkSampleBytes(b *testing.B) {
	s := twoCPUSample(0)
	s.Kernel.Lines, s.Notes = nil, nil // a quiet second: no new log lines
	var buf bytes.Buffer
	enc, _ := NewEncoder(io.Discard, model.Host{}, t0)
	enc.w = &buf
	for b.Loop() {
		buf.Reset()
		enc.Sample(s)
	}
	b.ReportMetric(float64(buf.Len()), "bytes/sample")
}

func TestSampleUnderOneKB(t *testing.T) {
	s := twoCPUSample(0)
	s.Kernel.Lines, s.Notes = nil, nil
	var buf bytes.Buffer
	enc, _ := NewEncoder(io.Discard, model.Host{}, t0)
	enc.w = &buf
	enc.Sample(s)
	if buf.Len() > 1024 {
		t.Errorf("a 2-CPU sample is %d bytes on the wire, goal ≤ 1024:\n%s", buf.Len(), buf.String())
	}
}

func TestSinceStartDropsTheBacklog(t *testing.T) {
	s := twoCPUSample(0)
	s.Kernel.Lines = []model.KernelLine{{Time: t0.Add(-time.Hour), Text: "old"}, {Time: t0.Add(time.Second), Text: "new"}}
	got := SinceStart(s, t0)
	if len(got.Kernel.Lines) != 1 || got.Kernel.Lines[0].Text != "new" {
		t.Errorf("lines %+v, want only the one after the start", got.Kernel.Lines)
	}
}

// TestNamespacesOnTheWire: the namespaces ride the stream, bounded: a
// hostile stream's 60 rows arrive as the first MaxNamespaceRows
// and a count of the rest.
func TestNamespacesOnTheWire(t *testing.T) {
	var rows []model.NetNS
	for i := range 60 {
		rows = append(rows, model.NetNS{Inode: uint64(i), Name: "pod\x1b[2J", Kind: "pod", PID: i, Count: 300})
	}
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Namespaces = &model.Namespaces{Rows: rows}
	enc.Sample(s)
	dec := NewDecoder(&b)
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	got, _, err := dec.Next()
	if err != nil || got == nil || got.Namespaces == nil {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	if ns := got.Namespaces; len(ns.Rows) != model.MaxNamespaceRows || ns.Others != 60-model.MaxNamespaceRows || ns.Rows[0].Count != 300 {
		t.Errorf("%d rows, %d others", len(ns.Rows), ns.Others)
	}
}

// TestDriftOnTheWire: a stream's drift check arrives for tablefull's
// knobs only, each once, with its writers bounded; a path from a
// namespace row is never taken.
func TestDriftOnTheWire(t *testing.T) {
	var writers []string
	for range 50 {
		writers = append(writers, "/etc/sysctl.d/99-zz.conf (4096)")
	}
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Drift = &knob.Drifts{Checked: []string{knob.Max, "kernel.core_pattern", knob.Max},
		Drifted: []knob.Drift{{Knob: knob.Max, Persisted: "32768", Live: "4096", Writers: writers},
			{Knob: "kernel.core_pattern", Persisted: "|/bin/sh", Live: "core"}}}
	s.Namespaces = &model.Namespaces{Rows: []model.NetNS{{Inode: 9, Name: "r", Kind: "netns", Path: "/etc/shadow"}}}
	enc.Sample(s)
	dec := NewDecoder(&b)
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	got, _, err := dec.Next()
	if err != nil || got == nil || got.Drift == nil {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	d := got.Drift
	if len(d.Checked) != 1 || len(d.Drifted) != 1 || d.Drifted[0].Live != "4096" || len(d.Drifted[0].Writers) != maxDriftWriters {
		t.Errorf("drift %+v: want nf_conntrack_max alone, %d writers", d, maxDriftWriters)
	}
	if p := got.Namespaces.Rows[0].Path; p != "" {
		t.Errorf("a stream's namespace path taken: %q", p)
	}
}
