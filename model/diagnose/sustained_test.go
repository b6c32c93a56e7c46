package diagnose

import (
	"math"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestFastSampleSizesOverAnInterval: a fast sample a tenth of a second
// after a drop, with a burst of 150 entries let in and 8 SYNs
// retransmitted together, counts them in its own rates (totals stay
// exact) but sizes the table over the whole interval before it: its
// demand and sustained rate are those of 1.1 s, not ten times the burst.
func TestFastSampleSizesOverAnInterval(t *testing.T) {
	t0 := time.Unix(1000, 0)
	pinned := model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, TimeWaitHold: 30}
	sample := func(at time.Duration, newTCP, synRetrans uint64) model.Sample {
		s := model.Sample{Time: t0.Add(at), Interval: time.Second, Conntrack: pinned,
			Entries: events(1, newTCP, 0, model.ClassCounts{})}
		s.TCP.SynRetrans = synRetrans
		return s
	}
	a := NewAnalyzer(10)
	a.Add(sample(0, 0, 0))
	whole := a.Add(sample(time.Second, 0, 0))
	fast := a.Add(sample(1100*time.Millisecond, 150, 8))
	after := a.Add(sample(2100*time.Millisecond, 150, 8))

	near := func(got, want float64) bool { return math.Abs(got-want) < 0.5 }
	if got := fast.Rates.NewEntriesPS(); !near(got, 1500) {
		t.Errorf("the fast frame's own rate is %.1f/s, want the burst's 1,500/s (totals read it)", got)
	}
	if got := fast.Sustained().Total; !near(got, 150/1.1) {
		t.Errorf("the fast frame sustains %.1f/s, want %.1f/s (150 over the 1.1 s since a whole interval before)", got, 150/1.1)
	}
	if want := (150 + 8.0/SynAttempts) / 1.1; !near(fast.Demand.AtLeast, want) {
		t.Errorf("the fast frame's demand is %+v, want ≥ %.1f/s over 1.1 s", fast.Demand, want)
	}
	if got := whole.Sustained().Total; got != whole.Rates.NewEntriesPS() {
		t.Errorf("a whole interval's sustained rate %.1f/s is not its own %.1f/s", got, whole.Rates.NewEntriesPS())
	}
	if got := after.Sustained().Total; got != after.Rates.NewEntriesPS() {
		t.Errorf("the interval after the fast sample sustains %.1f/s, not its own %.1f/s", got, after.Rates.NewEntriesPS())
	}
	for _, f := range []Frame{whole, fast, after} {
		for _, c := range f.Faults() {
			t.Errorf("%s: %s", f.Sample.Time.Format("15:04:05.000"), c)
		}
	}
}

// TestSpanTrackerKeepsAnInterval: the samples kept are those a later
// sample may measure from, never more than keptForSpan.
func TestSpanTrackerKeepsAnInterval(t *testing.T) {
	var tr spanTracker
	t0 := time.Unix(1000, 0)
	for i := range 40 { // a fast sample every 100 ms for 4 s
		tr.keep(model.Sample{Time: t0.Add(time.Duration(i) * 100 * time.Millisecond), Interval: time.Second})
	}
	if n := len(tr.recent); n > keptForSpan {
		t.Errorf("%d samples kept, want at most %d", n, keptForSpan)
	}
	var slow spanTracker
	for i := range 5 {
		slow.keep(model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second})
	}
	if n := len(slow.recent); n != 2 {
		t.Errorf("whole intervals keep %d samples, want 2 (the newest and the one an interval before it)", n)
	}
}
