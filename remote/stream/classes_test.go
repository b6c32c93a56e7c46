package stream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestClassesOfAnOlderStream: a stream written before tcp-reset had a
// class of its own sends seven counts per class array, one written
// before tcp-half-open eight, before tcp-last-ack nine; each reads the
// same, with the later classes not counted apart. A newer stream's
// reset, half-open and last-ack entries cross as their own classes.
func TestClassesOfAnOlderStream(t *testing.T) {
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Entries = model.Entries{Source: model.EntriesEvents, Epoch: 1}
	s.Entries.Ended[model.ClassTCPDone], s.Entries.Ended[model.ClassTCPReset], s.Entries.Ended[model.ClassTCPHalfOpen] = 10, 4, 2
	s.Entries.Ended[model.ClassTCPLastAck] = 3
	s.Conntrack.Holds[model.ClassTCPReset] = 10
	enc.Sample(s)
	header, line, _ := strings.Cut(b.String(), "\n")
	const now = `"e":[10,0,0,0,0,0,0,4,2,3]`
	if !strings.Contains(line, now) {
		t.Fatalf("the reset, half-open and last-ack entries are not the eighth to tenth counts: %s", line)
	}
	for _, c := range []struct {
		name, line               string
		reset, halfOpen, lastAck uint64
	}{
		{"now", line, 4, 2, 3},
		{"before last-ack", strings.Replace(line, now, `"e":[10,0,0,0,0,0,0,4,2]`, 1), 4, 2, 0},
		{"before half-open", strings.Replace(line, now, `"e":[10,0,0,0,0,0,0,4]`, 1), 4, 0, 0},
		{"before reset", strings.Replace(line, now, `"e":[10,0,0,0,0,0,0]`, 1), 0, 0, 0},
	} {
		dec := NewDecoder(strings.NewReader(header + "\n" + c.line))
		if err := dec.Header(); err != nil {
			t.Fatal(err)
		}
		got, _, err := dec.Next()
		if err != nil || got == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e := got.Entries.Ended; e[model.ClassTCPDone] != 10 || e[model.ClassTCPReset] != c.reset || e[model.ClassTCPHalfOpen] != c.halfOpen || e[model.ClassTCPLastAck] != c.lastAck {
			t.Errorf("%s: ended %v, want 10 tcp-closed, %d tcp-reset, %d tcp-half-open and %d tcp-last-ack", c.name, e, c.reset, c.halfOpen, c.lastAck)
		}
	}
}
