package exporter

import (
	"strconv"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/metrics"
)

// planNow is the moment's plan as the exporter serves it: the changes
// tuning.Diagnose proposes over the press under way, the table's memory
// at its cap now and as planned, and the classes' shares at that moment.
type planNow struct {
	changes     []tuning.Change
	now, after  tuning.Cost
	classShares []classShare
}

// classShare is a class's share of the table, 0..1.
type classShare struct {
	class model.Class
	share float64
}

// observePlan folds f into the press's frames and keeps the plan of its
// newest pressed frame (nil when none is proposed). The slab's size is
// not read here: the cost assumes tuning's bytes an entry, and says so
// in the help of its series.
func (e *Exporter) observePlan(f diagnose.Frame) {
	e.planner.Add(f)
	d, ok := e.planner.Diagnosis(e.host, 0)
	if !ok || len(d.Plan.Changes) == 0 {
		e.plan = nil
		return
	}
	p := &planNow{changes: d.Plan.Changes, after: d.Plan.Cost}
	// the table as it is, every knob the frame read (buckets too), not
	// only the ones the plan changes
	p.now = tuning.CostOf(incident.KnobsAt(d.Now.Sample.Conntrack), nil, d.Plan.Cost.EntryBytes, e.host.MemTotal)
	p.classShares = shares(d.Now.Fill, d.Now.Sample.Conntrack)
	e.plan = p
}

// shares are the classes' shares of the table by fill (of the count, or
// of the classes' sum where it is larger: a guess scaled past the count).
func shares(f diagnose.Fill, c model.Conntrack) []classShare {
	var sum uint64
	for _, cf := range f.Classes {
		sum += cf.Entries
	}
	total := max(sum, c.Count)
	if total == 0 {
		return nil
	}
	var out []classShare
	for _, cf := range f.Classes {
		if cf.Entries > 0 {
			out = append(out, classShare{cf.Class, float64(cf.Entries) / float64(total)})
		}
	}
	return out
}

// plan is the moment's plan's series, when one proposes anything.
func (m emit) plan(p *planNow) {
	if p == nil {
		return
	}
	seen := map[string]bool{}
	for _, c := range p.changes {
		cur, okCur := knobNumber(c.Current)
		prop, okProp := knobNumber(c.Proposed)
		if seen[c.Key] || !okCur || !okProp {
			continue
		}
		seen[c.Key] = true
		m.gauge(descOf(metrics.PlanKnob), cur, c.Key, "current")
		m.gauge(descOf(metrics.PlanKnob), prop, c.Key, "proposed")
	}
	m.gauge(descOf(metrics.PlanMemory), float64(p.now.Bytes), "current")
	m.gauge(descOf(metrics.PlanMemory), float64(p.after.Bytes), "proposed")
	for _, cs := range p.classShares {
		m.gauge(descOf(metrics.PlanClassShare), cs.share, cs.class.String())
	}
}

// knobNumber is a knob's value as one number; false for a knob of more
// than one (ip_local_port_range's "32768 60999"), which has no series.
func knobNumber(v string) (float64, bool) {
	n, err := strconv.ParseUint(v, 10, 64)
	return float64(n), err == nil
}
