package story

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
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
