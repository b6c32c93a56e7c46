package diagnose

import "github.com/tablefull/tablefull/model"

// keptForSpan bounds the samples a spanTracker keeps: fast samples come a
// tenth of a second apart at the closest, so an interval holds a few.
const keptForSpan = 12

// spanTracker keeps the samples of about the last interval, so that a
// fast sample's rates for sizing are measured over a whole interval: a
// tenth of a second after a drop says how bursty the table is (the SYN
// ladder's retransmits come together, a reused tuple's entries in a
// rush), not what it holds over a hold of many seconds.
type spanTracker struct {
	recent []model.Sample
}

// over returns r, the rates of s since the sample before it, or, when
// that is shorter than s's interval, the rates over the span back to the
// newest sample at least one interval before s (the oldest kept when none
// is).
func (t *spanTracker) over(s model.Sample, r model.Rates) model.Rates {
	defer t.keep(s)
	if len(t.recent) == 0 || s.Interval <= 0 || r.Elapsed >= s.Interval*9/10 {
		return r
	}
	base := t.recent[0]
	for _, p := range t.recent {
		if s.Time.Sub(p.Time) >= s.Interval*9/10 {
			base = p
		}
	}
	return model.Delta(base, s)
}

// keep adds what a span measures of s (its counters, not its rows,
// census or namespaces) and lets go of the samples no later sample will
// measure from: all but the newest one at least an interval before s.
func (t *spanTracker) keep(s model.Sample) {
	entries := s.Entries
	entries.TopDests, entries.TopSources = nil, nil // a span's are its newest sample's
	t.recent = append(t.recent, model.Sample{Time: s.Time, Interval: s.Interval, Conntrack: s.Conntrack,
		CTStats: s.CTStats, TCP: s.TCP, Entries: entries, KernelRelease: s.KernelRelease, Absent: s.Absent})
	drop := 0
	for i := 1; i < len(t.recent); i++ {
		if s.Time.Sub(t.recent[i].Time) >= s.Interval {
			drop = i
		}
	}
	drop = max(drop, len(t.recent)-keptForSpan)
	t.recent = append(t.recent[:0], t.recent[drop:]...)
}
