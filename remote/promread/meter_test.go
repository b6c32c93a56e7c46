package promread

import (
	"testing"
	"time"
)

// TestOwnIsCPU: the reader's own time is its thread's CPU, not the wall
// clock: a stretch that waits (as the console does while the engine
// computes on the same CPUs) counts next to nothing, one that works
// counts its work.
func TestOwnIsCPU(t *testing.T) {
	var waited meter
	start := waited.ownStart()
	time.Sleep(60 * time.Millisecond)
	waited.ownEnd(start)
	if got := time.Duration(waited.own.Load()); got > 10*time.Millisecond {
		t.Errorf("a stretch of 60 ms asleep counted %s as the reader's own", got)
	}
	// a busy machine may take the thread off its CPU in the middle: the
	// work counts, never more than the wall time it took
	var worked meter
	start = worked.ownStart()
	spin := time.Now()
	for time.Since(spin) < 30*time.Millisecond {
	}
	took := time.Since(spin)
	worked.ownEnd(start)
	if got := time.Duration(worked.own.Load()); got <= 0 || got > took+time.Millisecond {
		t.Errorf("%s of work counted %s as the reader's own", took, got)
	}
}
