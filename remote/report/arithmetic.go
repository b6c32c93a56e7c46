package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
)

// peakCeiling is the ceiling of the class that filled the table at its
// peak, with its words: the one the text says and the chart draws (none
// where standing connections fill it).
func peakCeiling(in *incident.Incident) (float64, string) {
	return diagnose.CeilingOf(in.Start, in.PeakFill.WithHolds(in.Start, in.Host.Kernel))
}

// arithmetic is the write-up's arithmetic on the recording's numbers:
// working set = rate × hold, the ceiling, chain depth, the proposed max
// and what it costs.
func (t narrator) arithmetic() section {
	in := t.in
	st, end := in.Start, in.End
	sec := section{Title: "The arithmetic"}
	if st.Status != model.TableTracked {
		return sec.saying("There is no table to size: nothing was tracked.")
	}
	hold := st.TimeWaitHold
	var p []string
	filler, known := in.Filler()
	switch {
	case in.PeakFill.Known(): // by class, below
	case known && filler != model.ProtoTCP:
		p = append(p, fmt.Sprintf("What filled it was %s, held by its own timeout, not TIME_WAIT; no rate by class was counted to size it by.", filler))
	case in.PeakNewConnsPS > 0:
		ws := arith.WorkingSet(in.PeakNewConnsPS, hold, in.PeakOpen)
		p = append(p, fmt.Sprintf("Working set: the peak of %s new connections/s (at %s) × a TIME_WAIT hold of %d s, plus %s open, is %s entries: what the table must hold at that rate.",
			units.Num(in.PeakNewConnsPS), t.at(in.PeakNewConnsAt), hold, units.Int(in.PeakOpen), units.Int(ws)))
	default:
		p = append(p, "No new connections were counted, so there is no rate to size the table by.")
	}
	if s := t.byClass(); s != "" {
		p = append(p, s)
	}
	if d := in.PeakDemand; d.AtLeast > 0 {
		sized := "the proposal is sized on the demand"
		if top, ok := in.PeakFill.Top(); ok && top.Class.Standing() { // no rate × hold projects what stands open
			sized = "standing connections fill it, so the proposal is sized on what stands open, not on the demand"
		}
		p = append(p, fmt.Sprintf("Demand while pinned: at least %s new entries/s at %s (%s). A full table admits only its ceiling, so what got in is not what was wanted; %s.",
			units.Num(d.AtLeast), t.at(in.PeakDemandAt), d.Basis, sized))
	}
	if c, why := peakCeiling(in); why == diagnose.NoCeiling {
		p = append(p, "No ceiling of new entries: standing connections fill it, so one gets in only as another closes; no hold frees what is live.")
	} else if c > 0 && in.PeakFill.Known() {
		p = append(p, fmt.Sprintf("Ceiling of the class that fills it: %s = %s new entries/s sustained.", why, units.Num(c)))
	} else if c := arith.Ceiling(st.Max, hold); c > 0 {
		s := fmt.Sprintf("Ceiling: nf_conntrack_max ÷ hold = %s ÷ %d s = %s new connections/s sustained", units.Int(st.Max), hold, units.Num(c))
		if end.Max != st.Max || end.TimeWaitHold != hold {
			s += fmt.Sprintf("; at the end of the recording %s ÷ %d s = %s/s", units.Int(end.Max), end.TimeWaitHold, units.Num(arith.Ceiling(end.Max, end.TimeWaitHold)))
		}
		p = append(p, s+".")
	}
	if b := t.buckets(); b != "" {
		p = append(p, b)
	}
	if fr, ok := in.FreedBy(); ok {
		sec.Paras = append(p, t.freed(fr)...)
		return sec
	}
	d, ok := in.Diagnosis(0)
	plan := d.Plan
	for _, c := range d.Contradictions() { // a defect of tablefull's, said rather than printed as if true
		p = append(p, "⚠ tablefull disagrees with itself at this moment (a defect; please report it): "+c+".")
	}
	if said := planSaid(plan, ok); said != nil {
		sec.Paras = append(p, said...)
		return sec
	}
	p = append(p, plan.Notes...)
	if plan.Refusal != "" {
		p = append(p, "Refused as it stands: "+plan.Refusal+".")
	}
	c := plan.Cost
	p = append(p, fmt.Sprintf("Proposed, as tablefull tune --dry-run would have at %s, from the knobs then: a table of %s entries and %s buckets costs %.1f MiB of kernel memory (%.2f %% of RAM) at about %d bytes an entry%s.",
		t.at(in.PlanAt()), units.Int(c.Entries), units.Int(c.Buckets), c.MiB(), c.PctOfRAM, c.EntryBytes, assumed(c)))
	if w := c.WorstCase(); w != "" {
		p = append(p, "The cap holds in every namespace: "+w+".")
	}
	sec.Paras = p
	tb := table{Head: []string{"knob", "then", "proposed", "why"},
		Note: "tablefull tune --set KEY=VALUE applies a change and reads it back; --persist keeps it across a reboot."}
	for _, ch := range plan.Changes {
		tb.Rows = append(tb.Rows, []string{ch.Key, knobValue(ch.Current), knobValue(ch.Proposed), ch.Why.Text()})
	}
	sec.Tables = []table{tb}
	return sec
}

// buckets is the chain depth at the peak count, under the buckets in
// force then; "" when the hashsize was not read.
func (t narrator) buckets() string {
	in := t.in
	st, end := in.Start, in.End
	if b := st.Buckets; b > 0 {
		said := units.Int(b)
		if in.PeakCount > st.Max && end.Buckets > b { // the peak came under the raised hashsize
			b = end.Buckets
			said += ", " + units.Int(b) + " after the raise"
		}
		depth := fmt.Sprintf("%.1f entries", arith.ChainDepth(in.PeakCount, b))
		if arith.ChainDepth(in.PeakCount, b) < 0.1 {
			depth = "under 0.1 entries"
		}
		return fmt.Sprintf("Buckets: %s; at the peak count of %s the chains are %s deep on average (2 × count ÷ buckets: each entry is hashed in both directions; buckets decide how fast a lookup is, max how many entries exist at all).",
			said, units.Int(in.PeakCount), depth)
	}
	return ""
}

// byClass is the working set by class at the recording's largest fill:
// a projection of its rates (each class's rate × its own hold, plus what
// stands open), said as one beside the count the table held then. ""
// when no frame counted classes.
func (t narrator) byClass() string {
	in := t.in
	pf := in.PeakFill
	if !pf.Known() {
		return ""
	}
	var terms []string
	standing := false
	for _, cf := range pf.Classes {
		switch {
		case cf.Class.Standing():
			terms, standing = append(terms, fmt.Sprintf("%s standing open (%s)", units.Int(cf.Entries), cf.Class)), true
		case cf.RatePS > 0:
			terms = append(terms, cf.Class.String()+" "+pf.Arithmetic(cf))
		case cf.Entries > 0:
			terms = append(terms, fmt.Sprintf("%s %s entries, no rate of new ones counted", cf.Class, units.Int(cf.Entries)))
		}
	}
	if churning := slices.ContainsFunc(pf.Classes, func(cf diagnose.ClassFill) bool { return !cf.Class.Standing() && cf.RatePS > 0 }); !churning {
		switch {
		case len(terms) == 0:
			return ""
		case !standing: // a full table's classes, none with a rate: nothing projects them
			return fmt.Sprintf("By class (at %s): %s: no rate × hold projects them; the table held %s then.",
				t.at(in.PeakFillAt), strings.Join(terms, " + "), units.Int(in.PeakFillCount))
		}
		return fmt.Sprintf("By class (at %s): %s, connections that live as long as their owners keep them: no rate × hold projects them; the table held %s then.",
			t.at(in.PeakFillAt), strings.Join(terms, " + "), units.Int(in.PeakFillCount))
	}
	return fmt.Sprintf("By class, counted from the kernel's events (at %s): %s; in all %s entries at steady state, a projection of those rates; the table held %s then. Each class is held by its own timeout, so the table's room is shared by what each admits times how long it is kept.",
		t.at(in.PeakFillAt), strings.Join(terms, "; "), units.Int(pf.WorkingSet()), units.Int(in.PeakFillCount))
}

// planSaid is what the section says in place of a proposal table: why
// there is no plan, the planner's notes and refusal when it changes
// nothing; nil when there is a plan to show.
func planSaid(plan tuning.Plan, ok bool) []string {
	if !ok {
		return []string{"The table never pinned or dropped before a knob changed: there is no plan to propose."}
	}
	if len(plan.Changes) > 0 {
		return nil
	}
	out := plan.Notes
	switch {
	case plan.Refusal != "":
		out = append(out, "Nothing proposed: "+plan.Refusal+".")
	default:
		out = append(out, fmt.Sprintf("The knobs at the first pin already fit the peak working set of %s entries: nothing to propose.", units.Int(plan.WorkingSet)))
	}
	return out
}

// freed says what freed the table within the recording and whether the
// table it ends with holds what came after with room: a recording that
// freed its table proposes nothing bigger than what did.
func (t narrator) freed(fr incident.Freed) []string {
	c := fr.By
	out := []string{fmt.Sprintf("What freed it: at %s %s went from %s to %s; from then to the end of the recording the table never pinned and dropped nothing. Its count peaked at %s after it (%.0f %% of the cap of %s) and stood at %s at the end.",
		t.at(c.At), knobName(c.Key), units.Int(number(c.Before)), units.Int(number(c.After)), units.Int(fr.Peak),
		arith.Percent(fr.Peak, fr.Max), units.Int(fr.Max), units.Int(fr.End))}
	settle := max(fr.Peak, fr.Steady.Projected())
	if st := fr.Steady; st.Remaining() > 0 && st.Projected() > fr.End {
		out = append(out, fmt.Sprintf("The count had not settled: an entry is held %s, longer than the %s the recording ran after the change; climbing %s/s since, it heads for %s by the end of the hold (%.0f %% of the cap).",
			units.Dur(st.Hold), units.Dur(st.Watched), units.Num(st.Climb), units.Int(st.Projected()), arith.Percent(st.Projected(), fr.Max)))
	}
	if arith.Percent(settle, fr.Max) <= settledPct {
		return append(out, fmt.Sprintf("That table holds its working set with room (under %.0f %% of its cap): nothing more to propose. tablefull tune --persist keeps it across a reboot.", settledPct))
	}
	want := tuning.NextPow2(settle * 3 / 2)
	return append(out, fmt.Sprintf("It holds it with little room: a cap of %s (that working set × 1.5, next power of two) would settle it; tablefull tune --set %s=%d applies it and reads it back.",
		units.Int(want), knob.Max, want))
}

// settledPct is the share of its cap a freed table's peak may take and
// still count as holding its working set with room.
const settledPct = 75.0

func assumed(c tuning.Cost) string {
	if c.EntryBytesAssumed {
		return " (assumed: a recording does not carry the slab's object size)"
	}
	return ""
}

// about says what the report was made from.
func (t narrator) about(r *Report) section {
	in := t.in
	s := fmt.Sprintf("Made by tablefull report from %s: %s from %s (source %s), every %s.",
		safe.Text(r.Source, 200), plural(in.Samples, "sample", "samples"), safe.Text(in.Host.Name, 64),
		safe.Text(in.Host.Source, 64), intervalText(in.Interval))
	if w := r.window(); w != "" {
		s += " It covers the recording" + w + " only."
	}
	if r.Torn {
		s += " The recording's last line was cut (its writer was stopped mid-line); everything before it is here."
	}
	if r.Unordered > 0 {
		s += fmt.Sprintf(" %s out of time order were skipped.", plural(r.Unordered, "sample", "samples"))
	}
	if r.Damaged > 0 {
		s += fmt.Sprintf(" %s that were not a valid record were skipped.", plural(r.Damaged, "line", "lines"))
	}
	s += fmt.Sprintf(" Each chart point is %s of samples.", units.Dur(in.Timeline.Width()))
	return section{Title: "About this report", Paras: []string{s}}
}

func intervalText(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return units.Dur(d)
}
