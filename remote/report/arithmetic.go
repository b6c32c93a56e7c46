package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
)

// arithmetic is the write-up's arithmetic on the recording's numbers:
// working set = rate × hold, the ceiling, chain depth, the proposed max
// and what it costs.
func (t narrator) arithmetic() section {
	in := t.in
	sec := section{Title: "The arithmetic"}
	st, end := in.Start, in.End
	if st.Status != model.TableTracked {
		sec.Paras = []string{"There is no table to size: nothing was tracked."}
		return sec
	}
	hold := st.TimeWaitHold
	var p []string
	if in.PeakNewConnsPS > 0 {
		ws := model.WorkingSet(in.PeakNewConnsPS, hold, in.PeakOpen)
		p = append(p, fmt.Sprintf("Working set: the peak of %s new connections/s (at %s) × a TIME_WAIT hold of %d s, plus %s open, is %s entries: what the table must hold at that rate.",
			model.Num(in.PeakNewConnsPS), t.at(in.PeakNewConnsAt), hold, model.Int(in.PeakOpen), model.Int(ws)))
	} else {
		p = append(p, "No new connections were counted, so there is no rate to size the table by.")
	}
	if pf := in.PeakFill; pf.Known() {
		var terms []string
		for _, cf := range pf.Classes {
			if cf.Class.Standing() {
				terms = append(terms, fmt.Sprintf("%s standing open (%s)", model.Int(cf.Entries), cf.Class))
			} else if cf.RatePS > 0 {
				terms = append(terms, fmt.Sprintf("%s %s/s × %d s", cf.Class, model.Num(cf.RatePS), cf.Hold))
			}
		}
		p = append(p, fmt.Sprintf("By class, counted from the kernel's events (at %s): %s = %s entries. Each class is held by its own timeout, so the table's room is shared by what each admits times how long it is kept.",
			t.at(in.PeakFillAt), strings.Join(terms, " + "), model.Int(pf.WorkingSet())))
	}
	if d := in.PeakDemand; d.AtLeast > 0 {
		p = append(p, fmt.Sprintf("Demand while pinned: at least %s new entries/s at %s (%s). A full table admits only its ceiling, so what got in is not what was wanted; the proposal is sized on the demand.",
			model.Num(d.AtLeast), t.at(in.PeakDemandAt), d.Basis))
	}
	if c, why := model.CeilingOf(st, in.PeakFill); c > 0 && in.PeakFill.Known() {
		p = append(p, fmt.Sprintf("Ceiling of the class that fills it: %s = %s new entries/s sustained.", why, model.Num(c)))
	} else if c := model.Ceiling(st.Max, hold); c > 0 {
		s := fmt.Sprintf("Ceiling: nf_conntrack_max ÷ hold = %s ÷ %d s = %s new connections/s sustained", model.Int(st.Max), hold, model.Num(c))
		if end.Max != st.Max || end.TimeWaitHold != hold {
			s += fmt.Sprintf("; at the end of the recording %s ÷ %d s = %s/s", model.Int(end.Max), end.TimeWaitHold, model.Num(model.Ceiling(end.Max, end.TimeWaitHold)))
		}
		p = append(p, s+".")
	}
	if st.Buckets > 0 {
		depth := fmt.Sprintf("%.1f entries", model.ChainDepth(in.PeakCount, st.Buckets))
		if model.ChainDepth(in.PeakCount, st.Buckets) < 0.1 {
			depth = "under 0.1 entries"
		}
		p = append(p, fmt.Sprintf("Buckets: %s; at the peak count of %s the chains are %s deep on average (2 × count ÷ buckets: each entry is hashed in both directions; buckets decide how fast a lookup is, max how many entries exist at all).",
			model.Int(st.Buckets), model.Int(in.PeakCount), depth))
	}
	plan := in.Plan(0)
	if len(plan.Changes) == 0 {
		p = append(p, fmt.Sprintf("The knobs at the start (max %s, TIME_WAIT hold %d s) already fit the peak working set of %s entries: nothing to propose.",
			model.Int(st.Max), hold, model.Int(plan.WorkingSet)))
		sec.Paras = p
		return sec
	}
	c := plan.Cost
	p = append(p, fmt.Sprintf("Proposed, from the knobs at the first pin: a table of %s entries and %s buckets costs %.1f MiB of kernel memory (%.2f %% of RAM) at about %d bytes an entry%s.",
		model.Int(c.Entries), model.Int(c.Buckets), c.MiB(), c.PctOfRAM, c.EntryBytes, assumed(c)))
	sec.Paras = p
	tb := table{Head: []string{"knob", "at the first pin", "proposed", "why"},
		Note: "tablefull tune --set KEY=VALUE applies a change and reads it back; --persist keeps it across a reboot."}
	for _, ch := range plan.Changes {
		tb.Rows = append(tb.Rows, []string{ch.Key, ch.Current, ch.Proposed, ch.Why})
	}
	sec.Tables = []table{tb}
	return sec
}

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
		model.Sanitize(r.Source, 200), plural(in.Samples, "sample", "samples"), model.Sanitize(in.Host.Name, 64),
		model.Sanitize(in.Host.Source, 64), intervalText(in.Interval))
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
	s += fmt.Sprintf(" Each chart point is %s of samples.", model.Dur(in.Timeline.Width()))
	return section{Title: "About this report", Paras: []string{s}}
}

func intervalText(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	return model.Dur(d)
}
