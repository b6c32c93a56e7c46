package diagnose

import (
	"strconv"
	"strings"
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
	var named []string
	var facts []verdict.Fact
	for i, t := range gone {
		k := "target " + strconv.Itoa(i)
		s := "{" + k + "}"
		facts = append(facts, verdict.W(k, safe.Text(t.Target, 64)))
		var about []string
		if t.Service != "" {
			about = append(about, "Service {"+k+" service}")
			facts = append(facts, verdict.W(k+" service", safe.Text(t.Service, 120)))
		}
		if t.Via != "" {
			about = append(about, "asked as {"+k+" via}")
			facts = append(facts, verdict.W(k+" via", safe.Text(t.Via, 64)))
		}
		if len(gone) > 1 { // which holds how many
			about = append(about, "{"+k+" n}")
			facts = append(facts, verdict.N(k+" n", t.Count(), verdict.Entries).From("the census's DNAT targets", walk))
		}
		if len(about) > 0 {
			s += " (" + strings.Join(about, ", ") + ")"
		}
		named = append(named, s)
	}
	what := "{stale} UDP entries"
	if n == 1 {
		what = "{stale} UDP entry"
	}
	facts = append(facts, verdict.N("stale", n, verdict.Entries).From("the census's DNAT targets the ruleset no longer names", walk))
	answered := "none ever saw a reply"
	switch {
	case unreplied == 0 && n == 1:
		answered = "it saw replies before its target went"
	case unreplied < n:
		answered = "{replied} saw replies before their target went"
		facts = append(facts, verdict.N("replied", n-unreplied, verdict.Entries).From("the census's DNAT targets, answered", walk))
	}
	filter := "-p udp --reply-src " + gone[0].TargetAddr().String()
	v := says(
		verdict.Say(verdict.Lead, "stale-dnat", what+" a DNAT sent to "+strings.Join(named, ", ")+", which the ruleset no longer names ("+answered+")", facts...),
		verdict.Say(verdict.Explain, "stale-dnat.meaning", "each packet their clients send refreshes them, so those flows stay blackholed while the clients keep their sockets").After(": "),
		verdict.Say(verdict.Fix, "stale-dnat.fix", "conntrack -D {filter} drops them now (E then D in the console)", verdict.W("filter", filter)),
		verdict.Say(verdict.Numbers, "stale-dnat.not-full", "not a full table"))
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
		verdict.Say(verdict.Lead, "stale", "{stale} of the census's {census} entries keep timeouts given before their class's hold was lowered ({class}: {of class}, up to {left} left; its hold now {hold})",
			verdict.N("stale", n, verdict.Entries).From("the census: timeouts over their class's hold", walk), model.FactCensus(c), verdict.W("class", most.String()),
			verdict.N("of class", c.OverHold[most], verdict.Entries).From("the census: timeouts over their class's hold", walk),
			verdict.D("left", time.Duration(c.OverLeft[most])*time.Second).From("the census: the longest timeout left", walk),
			verdict.D("hold", time.Duration(hold)*time.Second).From("the "+most.HoldState()+" timeout", model.ThisTable)),
		verdict.Say(verdict.Explain, "stale.meaning", "the count falls only as they run out or see a packet, not by the knob").After(": "),
		verdict.Say(verdict.Fix, "stale.fix", "conntrack -D drops them now"))
	v.Entries = model.StaleEntries(most, hold)
	return v, true
}
