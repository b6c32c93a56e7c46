package stream

import (
	"bytes"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestEvictedUnknownOnTheWire: evictions a kernel cannot tell (before
// 5.11) cross the stream as not known, never as 0 evicted; known ones
// cross as counted.
func TestEvictedUnknownOnTheWire(t *testing.T) {
	for _, unknown := range []bool{true, false} {
		var b bytes.Buffer
		enc, _ := NewEncoder(&b, model.Host{Name: "h"}, t0)
		s := twoCPUSample(1)
		s.Entries = model.Entries{Source: model.EntriesEvents, Epoch: 1, EvictedUnknown: unknown}
		s.Entries.Ended[model.ClassTCPDone], s.Entries.Evicted[model.ClassTCPDone] = 10, 3
		if unknown {
			s.Entries.Evicted = model.ClassCounts{}
		}
		enc.Sample(s)
		dec := NewDecoder(&b)
		if err := dec.Header(); err != nil {
			t.Fatal(err)
		}
		got, _, err := dec.Next()
		if err != nil || got == nil {
			t.Fatalf("decoded %+v, %v", got, err)
		}
		if e := got.Entries; e.EvictedUnknown != unknown || (!unknown && e.Evicted[model.ClassTCPDone] != 3) {
			t.Errorf("sent unknown=%v: got %+v", unknown, e)
		}
	}
}

// TestKernelReleaseFromTheHeader: every decoded sample carries the
// header's kernel release, which no sample line repeats, so a rule that
// changed between kernels reads the streamed host's.
func TestKernelReleaseFromTheHeader(t *testing.T) {
	var b bytes.Buffer
	enc, _ := NewEncoder(&b, model.Host{Name: "h", Kernel: "6.1.0-41-amd64"}, t0)
	s := twoCPUSample(1)
	s.KernelRelease = "not sent"
	enc.Sample(s)
	if bytes.Contains(b.Bytes(), []byte("not sent")) {
		t.Errorf("a sample's line carries its kernel release: %s", b.String())
	}
	dec := NewDecoder(&b)
	if err := dec.Header(); err != nil {
		t.Fatal(err)
	}
	got, _, err := dec.Next()
	if err != nil || got == nil || got.KernelRelease != "6.1.0-41-amd64" {
		t.Fatalf("decoded %+v, %v: want the header's kernel", got, err)
	}
}
