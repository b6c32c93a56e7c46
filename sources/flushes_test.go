package sources

import (
	"testing"
	"time"
)

// TestFlushSwitchOnlyLiveWhereKubeProxyRuns: a one-shot sample carries no
// flushes (not read); a live one where kube-proxy does not run says why
// it does not watch, and looks again only every FlushRecheck.
func TestFlushSwitchOnlyLiveWhereKubeProxyRuns(t *testing.T) {
	looked := 0
	f := newFlushSwitch("/proc")
	f.present = func() bool { looked++; return false }
	now := time.Now()
	if got := f.read(now); got != nil || looked != 0 {
		t.Fatalf("a one-shot sample read flushes %+v (looked %d)", got, looked)
	}
	f.live = true
	for i := range 3 {
		got := f.read(now.Add(time.Duration(i) * time.Second))
		if got == nil || got.Watching || got.Note != noKubeProxy {
			t.Fatalf("no kube-proxy: %+v", got)
		}
	}
	f.read(now.Add(FlushRecheck))
	if looked != 2 {
		t.Errorf("looked for kube-proxy %d times in %s, want 2", looked, FlushRecheck)
	}
}

// TestFlushLookNeverHoldsTheSample: the walk of every process that finds
// kube-proxy runs off the sampling path: a slow one leaves the sample on
// time, with the last answer, and its own answer is taken once it ends.
func TestFlushLookNeverHoldsTheSample(t *testing.T) {
	f := newFlushSwitch("/proc")
	f.live = true
	f.present = func() bool { return false }
	now := time.Now()
	f.read(now)
	release := make(chan struct{})
	f.present = func() bool { <-release; return false }
	start := time.Now()
	got := f.read(now.Add(FlushRecheck))
	if took := time.Since(start); took > 2*AttributionBudget || got.Note != noKubeProxy {
		t.Errorf("a slow look held the sample %s: %+v", took, got)
	}
	close(release)
	f.close()
}
