package stream

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestClassesOfAnOlderStream: a stream written before tcp-reset had a
// class of its own sends seven counts per class array; it reads the same,
// with tcp-reset not counted apart. A newer stream's reset entries cross
// as their own class.
func TestClassesOfAnOlderStream(t *testing.T) {
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
	s := twoCPUSample(1)
	s.Entries = model.Entries{Source: model.EntriesEvents, Epoch: 1}
	s.Entries.Ended[model.ClassTCPDone], s.Entries.Ended[model.ClassTCPReset] = 10, 4
	s.Conntrack.Holds[model.ClassTCPReset] = 10
	enc.Sample(s)
	header, line, _ := strings.Cut(b.String(), "\n")
	if !strings.Contains(line, `"e":[10,0,0,0,0,0,0,4]`) {
		t.Fatalf("the reset entries are not the eighth count: %s", line)
	}
	for _, c := range []struct {
		name, line string
		reset      uint64
	}{
		{"now", line, 4},
		{"older", strings.Replace(line, `"e":[10,0,0,0,0,0,0,4]`, `"e":[10,0,0,0,0,0,0]`, 1), 0},
	} {
		dec := NewDecoder(strings.NewReader(header + "\n" + c.line))
		if err := dec.Header(); err != nil {
			t.Fatal(err)
		}
		got, _, err := dec.Next()
		if err != nil || got == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if e := got.Entries.Ended; e[model.ClassTCPDone] != 10 || e[model.ClassTCPReset] != c.reset {
			t.Errorf("%s: ended %v, want 10 tcp-closed and %d tcp-reset", c.name, e, c.reset)
		}
	}
}
