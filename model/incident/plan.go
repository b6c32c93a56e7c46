package incident

import (
	"slices"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tuning"
)

// planFrames keeps, in one pass and bounded, the frames tuning.Diagnose
// reads of a recording: the first (what the plan was measured over),
// the ones that set the peak rate of new entries
// (or demand), the peak count, the largest fill and the newest census,
// and the last pinned frame, as they stood at the newest pressed
// (pinned or dropping) frame. Frames after the first knob change are
// another table's: the plan is the one offered before anyone tuned (a
// change before the first press starts the set again).
type planFrames struct {
	kept planKept
	// at is the kept frames as of the newest pressed frame (now nil:
	// none yet). Kept frames are never changed, only replaced, so this is
	// a copy of pointers, not of frames.
	at planKept
	// table is the knobs the frames are planned for.
	table  *model.Conntrack
	frozen bool
	// live starts again at a knob changed after a press, where a
	// recording's plan freezes: a live table's plan is for the table it
	// is now (Planner).
	live bool
}

// planKept are the frames the planner reads, each nil until seen.
type planKept struct {
	now, first, peakRate, peakCount, fill, census, pinned *diagnose.Frame
}

// frameList is frames in time order, as diagnose.Frames.
type frameList []diagnose.Frame

func (l frameList) Len() int                { return len(l) }
func (l frameList) At(i int) diagnose.Frame { return l[i] }
func frameRate(f *diagnose.Frame) float64   { return max(f.Sustained().Total, f.Demand.AtLeast) }
func keep(f diagnose.Frame) *diagnose.Frame { return &f }
func knobChanged(a, b model.Conntrack) bool { return knobsOf(a) != knobsOf(b) }

// add folds one frame in.
func (p *planFrames) add(f diagnose.Frame) {
	c := f.Sample.Conntrack
	k := &p.kept
	if k.first == nil {
		k.first = keep(f)
	}
	if p.frozen || c.Status != model.TableTracked {
		return
	}
	if p.table == nil {
		p.table = &c
	} else if knobChanged(*p.table, c) {
		if p.at.now != nil && !p.live {
			p.frozen = true
			return
		}
		*p = planFrames{table: &c, kept: planKept{first: keep(f)}, live: p.live} // tuned before it was pressed (or live): the table to plan for starts here
	}
	// Each is replaced as NewInputs picks it from a history: the first
	// frame of a strictly larger rate, count or fill; the newest census.
	if k.peakRate == nil || frameRate(&f) > frameRate(k.peakRate) {
		k.peakRate = keep(f)
	}
	if k.peakCount == nil || c.Peak > k.peakCount.Sample.Conntrack.Peak {
		k.peakCount = keep(f)
	}
	if f.Fill.Known() && (k.fill == nil || f.Fill.Outweighs(k.fill.Fill)) {
		k.fill = keep(f)
	}
	if cs := f.Sample.Census; cs != nil && cs.Error == "" {
		k.census = keep(f)
	}
	if f.Pinned {
		k.pinned = keep(f)
	}
	if f.Pinned || f.Rates.Drops() > 0 {
		k.now = keep(f)
		p.at = *k
	}
}

// sorted is the kept frames once each, in time order.
func (k planKept) sorted() []diagnose.Frame {
	var out []diagnose.Frame
	for _, f := range []*diagnose.Frame{k.first, k.peakRate, k.peakCount, k.fill, k.census, k.pinned} {
		if f != nil && !slices.ContainsFunc(out, func(o diagnose.Frame) bool { return o.Sample.Time.Equal(f.Sample.Time) }) {
			out = append(out, *f)
		}
	}
	slices.SortFunc(out, func(a, b diagnose.Frame) int { return a.Sample.Time.Compare(b.Sample.Time) })
	return out
}

// knobValues is the knobs a sample carries, as their values.
type knobValues [len(knobsInSamples)]uint64 // knobsInSamples is an array: its length is constant

func knobsOf(c model.Conntrack) knobValues {
	var v knobValues
	for i, k := range knobsInSamples {
		v[i] = k.get(c)
	}
	return v
}

// KnobsAt is the knobs a sample's table carries, as a tuner reads them
// (the ones not read are left out).
func KnobsAt(c model.Conntrack) map[string]string {
	out := map[string]string{}
	for _, k := range knobsInSamples {
		if v := k.get(c); v > 0 {
			out[k.key] = strconv.FormatUint(v, 10)
		}
	}
	return out
}

// Diagnosis is the moment the incident's tuning is asked on, as every
// surface diagnoses it (tuning.Diagnose): the recording's frames up to
// its newest pinned or dropping frame before a knob changed, from the
// knobs of that table, as tablefull tune --dry-run would have proposed
// there. entryBytes is the slab's object size (0: assumed). ok is false
// when the table was never pressed before a change.
func (in *Incident) Diagnosis(entryBytes uint64) (tuning.Diagnosis, bool) {
	return in.plan.at.diagnosis(in.Host, entryBytes)
}

// diagnosis is the moment of the newest pressed frame, diagnosed over
// the kept frames; false when none was pressed.
func (at planKept) diagnosis(h model.Host, entryBytes uint64) (tuning.Diagnosis, bool) {
	if at.now == nil {
		return tuning.Diagnosis{}, false
	}
	now := *at.now
	knobs := tuning.KnobState{Current: KnobsAt(now.Sample.Conntrack), EntryBytes: entryBytes, Global: true}
	return tuning.Diagnose(tuning.Guide{Knobs: knobs, Host: h, Measured: frameList(at.sorted()), Now: now}), true
}

// PlanAt is when the plan was asked for: the newest pressed frame before
// a knob changed (zero: never).
func (in *Incident) PlanAt() time.Time {
	if in.plan.at.now == nil {
		return time.Time{}
	}
	return in.plan.at.now.Sample.Time
}
