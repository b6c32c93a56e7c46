package tuning

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tally"
)

// TestJudgeLoopSteadyState: the loop calls a table freed only when its
// steady state — the count's climb since the apply over the rest of the hold of
// the class that fills it — fits under the count the collector evicts
// from. The first case is the seed's ingest as it was tried: the cap
// raised 4,096 → 8,192, no drops for 31 s, the count at 7,086 and still
// climbing ~96/s with 89 s of tcp-closed's 120 s hold to go, while the
// rates' rate × hold read under the cap. It was called freed, and the
// next ingest pinned the new cap again.
func TestJudgeLoopSteadyState(t *testing.T) {
	t0 := time.Unix(1000, 0)
	frames := func(secs int, max uint64, hold uint64, rate float64, count func(s int) uint64) *tally.Ring[diagnose.Frame] {
		r := tally.NewRing[diagnose.Frame](400)
		for s := 1; s <= secs; s++ {
			c := model.Conntrack{Status: model.TableTracked, Count: count(s), Peak: count(s), Max: max, TimeWaitHold: hold}
			f := diagnose.Frame{Sample: model.Sample{Time: t0.Add(time.Duration(s) * time.Second), Conntrack: c}, Pinned: diagnose.Pinned(c)}
			f.Rates.Elapsed = time.Second
			f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 0})
			f.Rates.Entries = tcpRate(rate)
			r.Push(f)
		}
		return r
	}
	line := func(from uint64, perSec float64) func(int) uint64 {
		return func(s int) uint64 { return from + uint64(perSec*float64(s)) }
	}
	for _, c := range []struct {
		name  string
		ring  *tally.Ring[diagnose.Frame]
		want  LoopState
		say   string
		ahead uint64 // the heading at least this
		// standing: a pool of open connections fills it (tcp-open first)
		standing bool
	}{
		{"the seed's ingest: quiet 31 s, still climbing toward a steady state over the cap",
			frames(32, 8192, 120, 50, line(4096, 96)), LoopPinned, "heading for ~", 8192, false},
		{"an ingest that ended within the watch: its climb comes again with it",
			frames(35, 8192, 120, 50, func(s int) uint64 { return 4096 + uint64(min(s, 15))*150 }), LoopPinned, "over 7,695", 8192, false},
		{"a slow climb whose steady state fits", frames(35, 8192, 120, 10, line(4096, 10)), LoopFreed, "under 7,695 (where", 5000, false},
		{"flat at 95 %: over the count the collector evicts from", frames(35, 8192, 120, 10, line(7800, 0)), LoopPinned, "over 7,695", 7800, false},
		{"a whole hold passed: the count is its steady state", frames(40, 8192, 30, 10, line(3000, 0)), LoopFreed, "(its 30 s hold has passed)", 3000, false},
		{"a cap under 100: the collector evicts nothing, the cap is the room", frames(35, 64, 120, 1, line(60, 0)), LoopFreed, "under 64", 60, false},
		{"a pool of open connections still opening: no hold carries its climb on, its working set says where it goes",
			frames(35, 8192, 120, 1, line(4500, 47)), LoopFreed, "at the rates since", 6000, true},
	} {
		st := JudgeLoop(t0, c.ring)
		if c.standing {
			st = JudgeLoop(t0, standingPool(c.ring))
		}
		if st.State != c.want || !strings.Contains(st.Say(), c.say) || st.Heading < c.ahead {
			t.Errorf("%s: %v heading %d %q, want %v with %q heading ≥ %d", c.name, st.State, st.Heading, st.Say(), c.want, c.say, c.ahead)
		}
	}
}

// standingPool is r with every frame's table filled by connections
// standing open (its count of them), and a trickle of closed ones.
func standingPool(r *tally.Ring[diagnose.Frame]) *tally.Ring[diagnose.Frame] {
	out := tally.NewRing[diagnose.Frame](r.Len())
	for i := range r.Len() {
		f := r.At(i)
		f.Fill = diagnose.Fill{Basis: model.BasisEvents, Classes: []diagnose.ClassFill{
			{Class: model.ClassTCPOpen, Entries: f.Sample.Conntrack.Count, Hold: 432000},
			{Class: model.ClassTCPDone, RatePS: 1, Hold: 120, Entries: 120}}}
		out.Push(f)
	}
	return out
}

// TestGCEvictFrom: the collector's threshold is integer arithmetic, as
// gc_worker computes it.
func TestGCEvictFrom(t *testing.T) {
	for max, want := range map[uint64]uint64{64: 0, 99: 0, 100: 95, 256: 190, 777: 665, 4096: 3800, 8192: 7695, 262144: 248995} {
		if got := model.GCEvictFrom(max); got != want {
			t.Errorf("GCEvictFrom(%d) = %d, want %d", max, got, want)
		}
	}
}
