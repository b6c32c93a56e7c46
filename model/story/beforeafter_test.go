package story

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tally"
)

func TestBeforeAfter(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var frames []diagnose.Frame
	for i := range 20 {
		f := diagnose.Frame{Sample: model.Sample{Time: t0.Add(time.Duration(i) * time.Second)},
			Rates: model.Rates{Elapsed: time.Second, CTTotal: model.CounterValues{}}}
		if i < 10 { // pinned and dropping before the fix
			f.Pinned = true
			f.Rates.CTTotal.Set(model.Drop, 540)
			f.Rates.SynRetransPS = 30
			f.Rates.Entries = model.EntryRates{Basis: model.BasisTCPOpens, Total: 33}
		} else {
			f.Rates.Entries = model.EntryRates{Basis: model.BasisTCPOpens, Total: 410}
		}
		frames = append(frames, f)
	}
	before, after := BeforeAfter(frames, t0.Add(9*time.Second), time.Minute)
	if before.DropsPS != 540 || before.Pinned != 10*time.Second || before.NewConnsPS != 33 || before.SynRetransPS != 30 {
		t.Errorf("before %+v", before)
	}
	if after.DropsPS != 0 || after.Pinned != 0 || after.NewConnsPS != 410 {
		t.Errorf("after %+v", after)
	}
	// Equal windows: 10 s after the mark, so 10 s before it, not 60; each
	// as long as the intervals its time pinned is counted over (it once
	// said "in the 9 s before, … pinned 10 s").
	if d1, d2 := before.To.Sub(before.From), after.To.Sub(after.From); d1 != 10*time.Second || d2 != 10*time.Second {
		t.Errorf("windows of %v and %v, want 10 s each", d1, d2)
	}
	if before.Pinned > before.To.Sub(before.From) {
		t.Errorf("pinned %v in a window of %v", before.Pinned, before.To.Sub(before.From))
	}
}

// TestBetween: the frames after from and up to to, each over its own
// interval, none of the interval before the first.
func TestBetween(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC)
	var frames []diagnose.Frame
	for i := range 10 {
		f := diagnose.Frame{}
		f.Sample.Time = t0.Add(time.Duration(i) * time.Second)
		f.Rates.Elapsed = time.Second
		if i < 5 {
			f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 10})
		}
		frames = append(frames, f)
	}
	ring := tally.NewRing[diagnose.Frame](len(frames))
	for _, f := range frames {
		ring.Push(f)
	}
	before := Between(ring, time.Time{}, t0.Add(4*time.Second))
	after := Between(ring, t0.Add(5*time.Second), time.Time{})
	if before.DropsPS != 10 || before.From != t0.Add(-time.Second) || before.To != t0.Add(4*time.Second) {
		t.Errorf("before: %v/s from %s to %s", before.DropsPS, before.From, before.To)
	}
	if after.DropsPS != 0 || after.From != t0.Add(5*time.Second) || after.To != t0.Add(9*time.Second) {
		t.Errorf("after: %v/s from %s to %s", after.DropsPS, after.From, after.To)
	}
	if w := Between(ring, t0.Add(time.Hour), time.Time{}); w != (Window{}) {
		t.Errorf("no frame: %+v", w)
	}
}
