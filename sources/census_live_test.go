package sources

import (
	"errors"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

func TestCensusRunner(t *testing.T) {
	calls := 0
	r := &censusRunner{dump: func() (model.Census, error) { calls++; return model.Census{Total: 7}, nil }}
	now := time.Now()
	if c := r.poll(now); c != nil || calls != 0 {
		t.Fatalf("off: census %v, %d walks", c, calls)
	}
	r.set(true)
	r.poll(now) // starts one in the background
	var got *model.Census
	for deadline := time.Now().Add(2 * time.Second); got == nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got = r.poll(time.Now())
	}
	if got == nil || got.Total != 7 || got.At.IsZero() {
		t.Fatalf("census %+v", got)
	}
	if r.poll(time.Now()) != nil || calls != 1 {
		t.Errorf("walked again before CensusEvery: %d walks", calls)
	}
	r.set(false)
	r.poll(time.Now().Add(time.Hour))
	if calls != 1 {
		t.Errorf("walked while off")
	}

	denied := &censusRunner{dump: func() (model.Census, error) { return model.Census{}, errors.New("needs root") }}
	denied.set(true)
	denied.poll(time.Now())
	for deadline := time.Now().Add(2 * time.Second); got == nil || got.Error == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		got = denied.poll(time.Now())
	}
	if got == nil || got.Error != "needs root" {
		t.Errorf("unprivileged census %+v, want the error carried", got)
	}
}

// TestHoldsNowForTheCensus: tablefull census reads the classes' holds as
// a sample does (the established timeout and the others), so it counts
// idle open connections and stale timeouts as the console's census does;
// a hold the host lacks stays 0.
func TestHoldsNowForTheCensus(t *testing.T) {
	h := HoldsNow("../testdata/hosts/healthy/proc")
	if h[model.ClassTCPOpen] != 432000 || h[model.ClassUDPSingle] != 30 || h[model.ClassTCPDone] != 120 {
		t.Errorf("holds %v: want established 432000, udp 30, time_wait 120", h)
	}
	if h := HoldsNow(t.TempDir()); h != (model.ClassCounts{}) {
		t.Errorf("holds of a host without conntrack %v, want all unknown", h)
	}
}
