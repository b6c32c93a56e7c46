package tuning

import (
	"fmt"
	"slices"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// Guide is what the next tuning step is proposed from, on every surface
// (the panel, tablefull tune, its --until-free loop, the lab): the knobs
// as the target's tuner reads them, the host, the frames measured and the
// frame of now, and the apply this surface watches, if any.
type Guide struct {
	Knobs    KnobState
	Host     model.Host
	Measured diagnose.Frames
	Now      diagnose.Frame
	// AppliedAt is the apply whose frames this surface watched (zero:
	// none); a one-shot plan reads the tuner's LastStep instead.
	AppliedAt time.Time
}

// Pressed reports whether the table needs a proposal or a refusal: it is
// pinned or dropping now.
func (g Guide) Pressed() bool { return pressed(g.Now) }

// PressWindow is how far back a pin still counts for sizing on it: a
// pinned table's clients retry a dropped SYN after 1, 2, 4 and 8 s, so
// an interval between their retries can neither drop nor peak at the
// cap while the pin goes on.
const PressWindow = 8 * time.Second

// pressedRecently reports whether the table was pinned or dropping now
// or in a measured frame within PressWindow before now.
func (g Guide) pressedRecently() (pinned, pressedAtAll bool) {
	pinned, pressedAtAll = g.Now.Pinned, g.Pressed()
	if g.Measured == nil {
		return pinned, pressedAtAll
	}
	for i := g.Measured.Len() - 1; i >= 0; i-- {
		f := g.Measured.At(i)
		if g.Now.Sample.Time.Sub(f.Sample.Time) > PressWindow {
			break
		}
		pinned = pinned || f.Pinned
		pressedAtAll = pressedAtAll || pressed(f)
	}
	return pinned, pressedAtAll
}

// pressed reports whether frame f was pinned or dropping.
func pressed(f diagnose.Frame) bool { return f.Pinned || f.Rates.Drops() > 0 }

// proposeNext is the one plan of every surface (through Diagnose): the demand's plan, after
// an apply sized on the fill measured since it (the guided loop: the
// frames this surface watched, or the tuner's record of its last step),
// once free the way back down; global knobs this tuner cannot write are
// proposed from the host with the command that applies them. While the
// table is pinned or dropping there is always a change or a refusal.
func proposeNext(g Guide) (Plan, LoopStatus) {
	in := NewInputs(g.Knobs.Current, g.Host, g.Knobs.EntryBytes, g.Measured, g.Now)
	var loop LoopStatus
	var notes []string
	// A one-shot plan sizes on its last step, and says its demand is a
	// lower bound, while the pin goes on, not only in an interval that
	// dropped (its clients back off between retries).
	pinnedRecently, pressedRecently := g.pressedRecently()
	switch {
	case !g.AppliedAt.IsZero():
		loop = JudgeLoop(g.AppliedAt, g.Measured)
		in = NextStep(in, loop)
		// A table the loop calls still pinned is the table's trouble
		// whatever this one frame's verdicts say (a count climbing for the
		// cap drops nothing yet, while a busy CPU may be all a frame
		// names): its knobs may be proposed, as Contradictions allows.
		if loop.State == LoopPinned && !slices.Contains(in.Verdicts, verdict.TableFull) {
			in.Verdicts = append(slices.Clone(in.Verdicts), verdict.TableFull)
		}
	case g.Knobs.LastStep != nil && pressedRecently:
		if l, ok := StepSince(*g.Knobs.LastStep, g.Now, in.Fill); ok {
			in = NextStep(in, l)
			notes = append(notes, l.SayStep(*g.Knobs.LastStep))
		}
	}
	p := ProposePlan(in)
	if !g.AppliedAt.IsZero() {
		switch loop.State {
		case LoopSettle:
			changes := []Change{SettleChange(loop)}
			p = Plan{Changes: changes, WorkingSet: loop.PeakWorkingSet(), Cost: CostOf(g.Knobs.Current, changes, g.Knobs.EntryBytes, g.Host.MemTotal)}
		case LoopWatching, LoopFreed: // the apply holds so far: nothing more until the loop says otherwise
			p = Plan{WorkingSet: loop.PeakWorkingSet(), Cost: CostOf(g.Knobs.Current, nil, g.Knobs.EntryBytes, g.Host.MemTotal)}
		}
	}
	if g.AppliedAt.IsZero() && len(notes) == 0 && pinnedRecently {
		notes = append(notes, fmt.Sprintf("demand ≥ %s new/s is a lower bound (a full table admits only its ceiling): each apply is watched and the next step sized on what the count does (the panel's loop, tablefull tune --until-free)",
			units.Num(in.PeakRate)))
	}
	p.Notes = notes
	p.Cost.Namespaces = in.Namespaces
	if g.Measured != nil && g.Measured.Len() > 0 {
		p.MeasuredFor = max(0, g.Now.Sample.Time.Sub(g.Measured.At(0).Sample.Time))
	}
	if kind, where, ok := FixElsewhere(g.Now); ok {
		p.FixElsewhere = string(kind) + ": " + where
	}
	if !g.Knobs.Global {
		var here []Change
		for _, c := range p.Changes {
			if spec, _ := Spec(c.Key); spec.Global {
				p.FromHost = append(p.FromHost, c)
			} else {
				here = append(here, c)
			}
		}
		p.Changes, p.HostCommand = here, HostCommand(p.FromHost)
	}
	switch {
	case p.Cost.Level() == verdict.SevCrit:
		p.Refusal = fmt.Sprintf("the table would take %.0f %% of RAM (over %.0f %%): refused (tablefull tune --force can)", p.Cost.PctOfRAM, MemRefusePct)
	case g.Pressed() && len(p.Changes)+len(p.FromHost) == 0:
		c := g.Now.Sample.Conntrack
		p.Refusal = fmt.Sprintf("no knob frees it: %s drops with the count at %s of %s are not the cap's; the verdict names their cause",
			units.Int(g.Now.Rates.Drops()), units.Int(c.Count), units.Int(c.Max))
		if p.FixElsewhere != "" {
			p.Refusal = fmt.Sprintf("no knob frees it: %s drops with the count at %s of %s are not the cap's; %s",
				units.Int(g.Now.Rates.Drops()), units.Int(c.Count), units.Int(c.Max), p.FixElsewhere)
		}
	}
	return p, loop
}

// StepSince is what the guided loop says of the last step from its
// record alone (a one-shot plan, a fresh process): when the cap is still
// the step's and the count has climbed from the step's count to now
// within the time since it, the count is heading for at least now plus
// that climb for another hold of the class that fills it. ok is false
// when the record is not the cap of now.
func StepSince(s Step, now diagnose.Frame, fill diagnose.Fill) (LoopStatus, bool) {
	c := now.Sample.Conntrack
	elapsed := now.Sample.Time.Sub(s.At)
	if c.Max != s.To || elapsed <= 0 {
		return LoopStatus{}, false
	}
	hold := c.TimeWaitHold
	if cf, ok := fill.Churn(); ok {
		hold = cf.Hold
	}
	count := max(c.Count, c.Peak)
	growth := max(0, float64(count)-float64(s.Count)) / elapsed.Seconds()
	l := LoopStatus{State: LoopPinned, Watched: elapsed, Max: c.Max, Count: c.Count, PeakCount: count,
		Climb: growth, Hold: time.Duration(hold) * time.Second, Drops: now.Rates.Drops()}
	l.Heading = Steady{Count: count, Max: c.Max, Climb: growth, Hold: l.Hold, Watched: elapsed}.Projected()
	if now.Pinned {
		l.Pinned = now.Rates.Elapsed
	}
	l.SettleAfter = max(SettleMin, l.Hold)
	return l, true
}

// SayStep says how the next step is sized on the last one's record.
func (l LoopStatus) SayStep(s Step) string {
	return fmt.Sprintf("the last step raised the cap %s → %s %s ago and the count climbed from %s to %s since: heading for ≥ %s, the next step is sized on that",
		units.Int(s.From), units.Int(s.To), units.Dur(l.Watched), units.Int(s.Count), units.Int(l.PeakCount), units.Int(l.Heading))
}
