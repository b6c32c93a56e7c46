package diagnose

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleStaleDNAT: UDP entries a DNAT sent to a target that no longer is
// one. Each packet their clients send refreshes them, so the flows stay
// blackholed for as long as the clients keep their sockets, however the
// rules changed: the stale-UDP blackhole of a backend gone from a
// Service, one entry or thousands, answered before or never. Warning.
func ruleStaleDNAT(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || !c.DNATChecked {
		return verdict.Verdict{}, false
	}
	var gone []model.DNATTarget
	n, unreplied := 0, 0
	for _, t := range c.StaleDNAT {
		if t.Gone {
			gone = append(gone, t)
			n += t.Count()
			unreplied += max(0, t.Unreplied)
		}
	}
	if len(gone) == 0 {
		return verdict.Verdict{}, false
	}
	walk := model.ThisTable + ", the census's walk"
	lead := "stale-dnat"
	if n == 1 {
		lead = "stale-dnat.one"
	}
	cs := []verdict.Clause{say(verdict.Lead, lead,
		verdict.N("stale", n, verdict.Entries).From("the census's DNAT targets the ruleset no longer names", walk))}
	for i, t := range gone {
		key := "stale-dnat.target"
		facts := []verdict.Fact{verdict.W("target", safe.Text(t.Target, 64))}
		if t.Service != "" {
			key += ".service"
			facts = append(facts, verdict.W("service", safe.Text(t.Service, 120)))
		}
		if t.Via != "" {
			key += ".via"
			facts = append(facts, verdict.W("via", safe.Text(t.Via, 64)))
		}
		if len(gone) > 1 { // which holds how many
			key += ".n"
			facts = append(facts, verdict.N("n", t.Count(), verdict.Entries).From("the census's DNAT targets", walk))
		}
		sep := ", "
		if i == 0 {
			sep = " "
		}
		cs = append(cs, say(verdict.Lead, key, facts...).After(sep))
	}
	switch {
	case unreplied == 0 && n == 1:
		cs = append(cs, say(verdict.Lead, "stale-dnat.gone.replied-one").After(", "))
	case unreplied < n:
		cs = append(cs, say(verdict.Lead, "stale-dnat.gone.replied",
			verdict.N("replied", n-unreplied, verdict.Entries).From("the census's DNAT targets, answered", walk)).After(", "))
	default:
		cs = append(cs, say(verdict.Lead, "stale-dnat.gone").After(", "))
	}
	filter := "-p udp --reply-src " + gone[0].TargetAddr().String()
	v := says(append(cs,
		say(verdict.Explain, "stale-dnat.meaning").After(": "),
		say(verdict.Fix, "stale-dnat.fix", verdict.W("filter", filter)),
		say(verdict.Numbers, "stale-dnat.not-full"))...)
	v.Entries = filter
	return v, true
}

// ruleStaleTimeouts: the census finds entries whose remaining timeouts are
// longer than their class's hold now — given before the hold was lowered.
// The count falls only as those run out (or the entries see a packet and
// take the new hold), whatever the knob says now. Warning.
func ruleStaleTimeouts(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || !c.HoldsCounted {
		return verdict.Verdict{}, false
	}
	var n uint64
	most := model.Class(0)
	for cl, v := range c.OverHold {
		n += v
		if v > c.OverHold[most] {
			most = model.Class(cl)
		}
	}
	if n < model.StaleMin || float64(n) < model.StaleShareMin*float64(c.Total) {
		return verdict.Verdict{}, false
	}
	hold := in.Sample.Conntrack.Holds[most]
	walk := model.ThisTable + ", the census's walk"
	v := says(
		say(verdict.Lead, "stale",
			verdict.N("stale", n, verdict.Entries).From("the census: timeouts over their class's hold", walk), model.FactCensus(c), verdict.W("class", most.String()),
			verdict.N("of class", c.OverHold[most], verdict.Entries).From("the census: timeouts over their class's hold", walk),
			verdict.D("left", time.Duration(c.OverLeft[most])*time.Second).From("the census: the longest timeout left", walk),
			verdict.D("hold", time.Duration(hold)*time.Second).From("the "+most.HoldState()+" timeout", model.ThisTable)),
		say(verdict.Explain, "stale.meaning").After(": "),
		say(verdict.Fix, "stale.fix"))
	v.Entries = model.StaleEntries(most, hold)
	return v, true
}
