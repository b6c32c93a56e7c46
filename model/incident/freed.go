package incident

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
)

// Freed is how a recording's table was freed within it: the last knob
// change, after which it never pinned or dropped again, and what the
// count did after it.
type Freed struct {
	By KnobChange
	// Peak is the highest count after the change; End the count at the
	// last sample, under the cap Max.
	Peak, End, Max uint64
	// Steady is where the count was heading at the end (the loop's
	// rule): the table is freed only when it fits.
	Steady tuning.Steady
}

// RefillFrames is how many frames after a raise of the cap the rate of
// new entries is the refill (the retries that waited at the cap rushing
// in), not the demand: they size nothing.
const RefillFrames = 3

// fixWatch follows the frames after each knob change: whether the table
// pinned or dropped after it (the frame that shows the change still
// counts the old knobs' drops), the count's peak since, and the refill
// after a raise.
type fixWatch struct {
	changes      int
	peak         uint64
	troubleAfter bool
	prevMax      uint64
	refill       int
	// since is when the last change was seen; baseAt and base the first
	// frame after it that no refill leads, the climb's start; lastAt the
	// last frame.
	since, baseAt, lastAt time.Time
	base                  uint64
}

// add folds a frame in; changes is how many knob changes were seen so far.
func (w *fixWatch) add(f diagnose.Frame, changes int) {
	c := f.Sample.Conntrack
	if w.refill > 0 {
		w.refill--
	}
	if w.prevMax > 0 && c.Max > w.prevMax {
		w.refill = RefillFrames
	}
	if c.Max > 0 {
		w.prevMax = c.Max
	}
	if changes != w.changes {
		w.changes, w.peak, w.troubleAfter = changes, 0, false
		w.since, w.baseAt = f.Sample.Time, time.Time{}
	} else if f.Pinned || f.Rates.Drops() > 0 {
		w.troubleAfter = true
	}
	if w.baseAt.IsZero() || w.refilling() {
		w.baseAt, w.base = f.Sample.Time, c.Count
	}
	w.lastAt = f.Sample.Time
	w.peak = max(w.peak, c.Peak, c.Count)
}

// steady is where the count was heading at its last frame, count, under
// a cap of max: its climb since the refill after the change, over the
// rest of the hold.
func (w *fixWatch) steady(count, max, hold uint64) tuning.Steady {
	s := tuning.Steady{Count: count, Max: max, Hold: time.Duration(hold) * time.Second, Watched: w.lastAt.Sub(w.since)}
	if secs := w.lastAt.Sub(w.baseAt).Seconds(); secs > 0 && count > w.base {
		s.Climb = float64(count-w.base) / secs
	}
	return s
}

// refilling reports whether the frame just added is within RefillFrames
// of a raise.
func (w *fixWatch) refilling() bool { return w.refill > 0 }

// FreedBy is the change that freed the table, when it pinned before the
// last knob change, never pinned or dropped after it, and the count's
// steady state fits (tuning.Steady, the loop's rule: a quiet stretch
// while the count still climbs toward the cap is not a free table).
func (in *Incident) FreedBy() (Freed, bool) {
	if in.FirstPinned.IsZero() || len(in.Changes) == 0 || in.fix.troubleAfter || in.fix.changes != len(in.Changes) {
		return Freed{}, false
	}
	st := in.fix.steady(in.End.Count, in.End.Max, in.FillerHold())
	if !st.Fits() {
		return Freed{}, false
	}
	return Freed{By: freeingChange(in.Changes), Peak: in.fix.peak, End: in.End.Count, Max: in.End.Max, Steady: st}, true
}

// freeingChange is the last change, or max when it changed at the same
// moment (the hashsize raised with it frees nothing: buckets decide how
// fast a lookup is, max how many entries exist).
func freeingChange(changes []KnobChange) KnobChange {
	last := changes[len(changes)-1]
	for i := len(changes) - 1; i >= 0 && changes[i].At.Equal(last.At); i-- {
		if changes[i].Key == knob.Max {
			return changes[i]
		}
	}
	return last
}

// Filler is the protocol of what filled the table: the heaviest class of
// the peak fill, else the census's largest class; ok is false when
// neither was counted.
func (in *Incident) Filler() (model.Proto, bool) {
	c, ok := in.fillerClass()
	return c.Proto(), ok
}

// FillerHold is how long the kernel holds an entry of what filled the
// table, in seconds, at the end of the recording: that class's timeout,
// or the TIME_WAIT hold when nothing was counted by class; 0 when
// standing connections filled it (their entries live as long as they
// do: no rate × hold sizes them).
func (in *Incident) FillerHold() uint64 {
	c, ok := in.fillerClass()
	if ok && c.Standing() {
		return 0
	}
	if h := in.End.Holds[c]; ok && h > 0 && c != model.ClassTCPDone {
		return h
	}
	return in.End.TimeWaitHold
}

func (in *Incident) fillerClass() (model.Class, bool) {
	if cf, ok := in.PeakFill.Top(); ok {
		return cf.Class, true
	}
	if cs := in.Census; cs != nil && cs.ByClass.Total() > 0 {
		best := model.AllClasses[0]
		for _, c := range model.AllClasses {
			if cs.ByClass[c] > cs.ByClass[best] {
				best = c
			}
		}
		return best, true
	}
	return model.ClassTCPDone, false
}
