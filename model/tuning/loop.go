package tuning

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// The guided loop is the write-up's way of fixing a full table: raise,
// watch, still pinned → raise again; once it holds, settle back down to
// the smallest table that held. JudgeLoop says where an apply has got to.

// LoopWatch is how long after an apply the loop watches before it calls
// the table freed: the clients' SYN retry ladder (1, 2, 4, 8 and 16 s).
// A client whose SYN the full table dropped comes back only on its next
// rung, so a quiet stretch shorter than the ladder can be clients
// backing off from a table that is still full (measured: "freed" after
// 10 s at a count that had not moved, then 56 drops in the next 30 s).
const LoopWatch = 31 * time.Second

// HeadingWatch is how long after an apply the loop watches before it
// judges where the count is heading: a count heading for the cap is
// still pinned then, without waiting out the ladder.
const HeadingWatch = 10 * time.Second

// SettleMin is the shortest time a table must stay free before the loop
// offers to settle down; it also waits out the churning class's hold, so
// that the count has turned over once at the new size.
const SettleMin = time.Minute

// LoopState is where an apply has got to.
type LoopState int

// The loop's states.
const (
	// LoopWatching: not watched long enough to say.
	LoopWatching LoopState = iota
	// LoopFreed: no drops and the count under the cap, heading for less
	// than the cap.
	LoopFreed
	// LoopPinned: drops or a pinned count since the apply, or a count
	// heading for the cap: the next step is proposed.
	LoopPinned
	// LoopSettle: free for a while at a peak working set a smaller table
	// holds: the smaller table is offered, not applied.
	LoopSettle
)

// String is the state as the loop says it.
func (s LoopState) String() string {
	return [...]string{"watching", "freed", "still pinned", "settle"}[s]
}

// LoopStatus is what the loop says of the frames since an apply.
type LoopStatus struct {
	State LoopState
	// Watched is how long the frames since the apply cover.
	Watched time.Duration
	// Max and Count are the cap and the count at the last frame.
	Max, Count uint64
	// PeakCount is the highest count since the apply; Heading the steady
	// state the count is heading for (Steady: its climb over the
	// rest of the hold; where no climb could be measured, rate × hold by
	// class). A flat count is its own steady state, whatever the rate:
	// entries that end as fast as they are made (a loopback client
	// reusing its ports) hold it flat. The peak working set is the larger
	// of the two.
	PeakCount, Heading uint64
	// Climb is how fast the count rose since the apply, entries/s: a
	// lower bound on the rate the table admits. It is read over the whole
	// watch, not its latest part: an ingest that ended within the watch
	// comes again, and the table must hold it then.
	Climb float64
	// Hold is how long the class that fills the table is held.
	Hold time.Duration
	// Drops is how many packets were dropped since the apply; Pinned how
	// long the count stood at the cap.
	Drops  uint64
	Pinned time.Duration
	// SettleAfter is how long the table must stay free before settling;
	// SettleMax, in LoopSettle, the smaller table offered.
	SettleAfter time.Duration
	SettleMax   uint64
}

// Steady is the steady state the loop judges by.
func (l LoopStatus) Steady() Steady {
	return Steady{Count: l.Count, Max: l.Max, Climb: l.Climb, Hold: l.Hold, Watched: l.Watched}
}

// PeakWorkingSet is the larger of the peak count and the working set the
// count is heading for.
func (l LoopStatus) PeakWorkingSet() uint64 { return max(l.PeakCount, l.Heading) }

// Headroom is how many entries the cap leaves above the peak working set.
func (l LoopStatus) Headroom() uint64 { return model.Increase(l.PeakWorkingSet(), l.Max) } // Increase(a, b) is b − a, or 0

// JudgeLoop says where an apply at appliedAt has got to, from the frames
// after it (oldest first). The first frame after the apply is skipped:
// its interval began before the apply, and its drops are the old table's.
func JudgeLoop(appliedAt time.Time, frames diagnose.Frames) LoopStatus {
	var l LoopStatus
	var from, firstAt time.Time
	var headings []uint64
	var hold, firstCount uint64
	var standing bool // the heaviest class at the last frame that knew it stands open
	seen := 0
	for i := range frames.Len() {
		f := frames.At(i)
		if !f.Sample.Time.After(appliedAt) {
			continue
		}
		if seen++; seen == 1 {
			from = f.Sample.Time
			continue
		}
		c := f.Sample.Conntrack
		if seen == 2 {
			firstCount, firstAt = c.Count, f.Sample.Time
		}
		l.Watched = f.Sample.Time.Sub(from)
		l.Max, l.Count = c.Max, c.Count
		l.PeakCount = max(l.PeakCount, c.Peak, c.Count)
		l.Drops += f.Rates.Drops()
		if f.Pinned {
			l.Pinned += f.Rates.Elapsed
		}
		if h, ok := headingOf(f); ok {
			headings = append(headings, h)
		}
		if cf, ok := f.Fill.Churn(); ok {
			hold = max(hold, cf.Hold)
		} else {
			hold = max(hold, c.TimeWaitHold)
		}
		if top, ok := f.Fill.Top(); ok {
			standing = top.Class.Standing()
		}
	}
	if standing {
		// connections standing open fill it: they leave when their owners
		// close them, not after a hold, so no hold carries their climb
		// on; the working set says where the count goes
		hold = 0
	}
	l.Hold = time.Duration(hold) * time.Second
	l.Heading = median(headings)
	if standing { // what stands open now is held at least as long as it stands
		l.Heading = max(l.Heading, l.Count)
	}
	if l.Watched >= time.Second && hold > 0 { // the count says where it goes better than a rate
		if secs := l.Watched.Seconds() - firstAt.Sub(from).Seconds(); secs > 0 {
			l.Climb = max(0, float64(l.Count)-float64(firstCount)) / secs
		}
		l.Heading = l.Steady().Projected()
	}
	l.SettleAfter = max(SettleMin, l.Hold)
	switch {
	case seen < 2:
		l.State = LoopWatching
	case l.Drops > 0 || l.Pinned > 0:
		l.State = LoopPinned
	case l.Watched < HeadingWatch: // a count still climbing to its level is not yet heading anywhere
		l.State = LoopWatching
	case l.Max > 0 && l.Heading > l.Steady().Room(): // a climbing count that will not fit is the next step's evidence
		l.State = LoopPinned
	case l.Watched < LoopWatch: // quiet is not free until the clients' retries have come back
		l.State = LoopWatching
	case l.Watched >= l.SettleAfter && SettleMax(l) < l.Max:
		l.State, l.SettleMax = LoopSettle, SettleMax(l)
	default:
		l.State = LoopFreed
	}
	return l
}

// headingOf is the working set frame f's rates lead to: rate × hold by
// class when classes are known, else the TCP arithmetic on the TIME_WAIT
// hold; ok is false when no rate was counted.
func headingOf(f diagnose.Frame) (uint64, bool) {
	if f.Fill.Known() {
		return f.Fill.WorkingSet(), true
	}
	if !f.Sustained().Known() {
		return 0, false
	}
	c := f.Sample.Conntrack
	return arith.WorkingSet(f.Sustained().Total, c.TimeWaitHold, f.Sample.TCP.Established), true
}

// median is the middle of xs (0 for none): one burst of retransmitted
// SYNs let in at once after a raise does not size the table.
func median(xs []uint64) uint64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// NextStep is what the next step is sized on once the loop says the table
// is still pinned: at least the peak working set since the apply (a count
// pinned at the new cap, or the working set it is heading for) and the
// rate the count climbed at, so the plan raises the cap again instead of
// calling the old peak enough.
func NextStep(in Inputs, l LoopStatus) Inputs {
	if l.State == LoopPinned {
		in.PeakCount = max(in.PeakCount, l.PeakWorkingSet())
		if l.Climb > in.PeakRate {
			in.PeakRate, in.RateFrom = l.Climb, "the count's climb since the apply"
		}
	}
	return in
}

// SettleMax is the table the loop settles down to: the smallest power of
// two at least 1.5 × the peak working set seen since the apply, never
// below the live count (the write-up's 17,100 → 32,768).
func SettleMax(l LoopStatus) uint64 {
	return ProposeMax(max(l.PeakWorkingSet(), l.Count), 0)
}

// SettleChange is the change that settles the table down, for a plan.
func SettleChange(l LoopStatus) Change {
	return Change{Key: knob.Max, Current: strconv.FormatUint(l.Max, 10), Proposed: strconv.FormatUint(l.SettleMax, 10),
		Why: say(verdict.Numbers, "plan.settle",
			verdict.D("watched", l.Watched).From("the loop's watch since the apply", "this table"),
			verdict.N("peak working set", l.PeakWorkingSet(), verdict.Entries).From("the loop's highest working set since the apply", "this table"))}
}

// Say is the loop's state in one line, for the panel and tune
// --until-free.
func (l LoopStatus) Say() string {
	switch l.State {
	case LoopPinned:
		if l.Drops == 0 && l.Pinned == 0 {
			return fmt.Sprintf("still pinned: no drops yet, but the count (%s of %s) is heading for ~%s%s, over %s (where the collector evicts): the next step is proposed, not applied",
				units.Int(l.Count), units.Int(l.Max), units.Int(l.Heading), l.climbNote(), units.Int(l.Steady().Room()))
		}
		return fmt.Sprintf("still pinned: %s and %s at the cap in %s since the apply (count %s of %s): the next step is proposed, not applied",
			dropsSaid(l.Drops), units.Dur(l.Pinned), units.Dur(l.Watched), units.Int(l.Count), units.Int(l.Max))
	case LoopFreed:
		return fmt.Sprintf("freed: no drops for %s; count %s of %s, steady ~%s%s under %s (where the collector evicts); headroom %s%s",
			units.Dur(l.Watched), units.Int(l.Count), units.Int(l.Max), units.Int(l.Heading), l.climbNote(), units.Int(l.Steady().Room()),
			units.Int(l.Headroom()), l.settleNote())
	case LoopSettle:
		return fmt.Sprintf("settle: free for %s at a peak working set of %s: %s holds it with half again to spare — offered, not applied",
			units.Dur(l.Watched), units.Int(l.PeakWorkingSet()), units.Int(l.SettleMax))
	}
	return fmt.Sprintf("watching: %s of %s since the apply, no drops yet (count %s of %s)",
		units.Dur(l.Watched), units.Dur(LoopWatch), units.Int(l.Count), units.Int(l.Max))
}

// dropsSaid is a count of drops with its noun: "1 drop", "40 drops".
func dropsSaid(n uint64) string {
	if n == 1 {
		return "1 drop"
	}
	return units.Int(n) + " drops"
}

// climbNote says how the heading was reached: the count's climb over the
// rest of the hold, or that the hold has passed and the count is where it
// settled.
func (l LoopStatus) climbNote() string {
	switch {
	case l.Hold == 0:
		return " at the rates since"
	case l.Steady().Remaining() == 0:
		return fmt.Sprintf(" (its %s hold has passed)", units.Dur(l.Hold))
	case l.Climb < 0.5:
		return " (flat)"
	}
	return fmt.Sprintf(" (+%s/s for the %s left of its %s hold)", units.Num(l.Climb), units.Dur(l.Steady().Remaining()), units.Dur(l.Hold))
}

// settleNote says when settling down will be offered.
func (l LoopStatus) settleNote() string {
	if SettleMax(l) >= l.Max {
		return ""
	}
	return fmt.Sprintf("; settle down to %s is offered after %s free", units.Int(SettleMax(l)), units.Dur(l.SettleAfter))
}
