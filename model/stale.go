package model

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model/verdict"
)

// overHoldSlack is how far over its class's hold an entry's remaining
// timeout may be and still be taken for one the hold gave: a packet in
// flight as the hold changes, a clock's rounding.
const overHoldSlack = 5

// countOverHold counts an entry of class cl with left seconds to live
// when its class's hold now is shorter.
func (c *CensusCounter) countOverHold(cl Class, left uint32) {
	h := c.Holds[cl]
	if h == 0 || uint64(left) <= h+overHoldSlack {
		return
	}
	c.overHold[cl]++
	c.overLeft[cl] = max(c.overLeft[cl], uint64(left))
}

// Thresholds of STALE TIMEOUTS: at least this many entries, and this
// share of the census, keep timeouts longer than their class's hold.
const (
	StaleMin      = 50
	StaleShareMin = 0.1
)

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
	most := Class(0)
	for cl, v := range c.OverHold {
		n += v
		if v > c.OverHold[most] {
			most = Class(cl)
		}
	}
	if n < StaleMin || float64(n) < StaleShareMin*float64(c.Total) {
		return verdict.Verdict{}, false
	}
	hold := in.Sample.Conntrack.Holds[most]
	walk := thisTable + ", the census's walk"
	v := says(
		verdict.Say(verdict.Lead, "stale", "{stale} of the census's {census} entries keep timeouts given before their class's hold was lowered ({class}: {of class}, up to {left} left; its hold now {hold})",
			verdict.N("stale", n, verdict.Entries).From("the census: timeouts over their class's hold", walk), factCensus(c), verdict.W("class", most.String()),
			verdict.N("of class", c.OverHold[most], verdict.Entries).From("the census: timeouts over their class's hold", walk),
			verdict.D("left", time.Duration(c.OverLeft[most])*time.Second).From("the census: the longest timeout left", walk),
			verdict.D("hold", time.Duration(hold)*time.Second).From("the "+most.HoldState()+" timeout", thisTable)),
		verdict.Say(verdict.Explain, "stale.meaning", "the count falls only as they run out or see a packet, not by the knob").After(": "),
		verdict.Say(verdict.Fix, "stale.fix", "conntrack -D drops them now"))
	v.Entries = staleEntries(most, hold)
	return v, true
}

// staleStates are the TCP state a class's stale entries are in, as
// conntrack(8) names it.
var staleStates = map[Class]string{ClassTCPOpen: "ESTABLISHED", ClassTCPDone: "TIME_WAIT", ClassTCPReset: "CLOSE", ClassTCPUnanswered: "SYN_SENT", ClassTCPHalfOpen: "SYN_RECV", ClassTCPLastAck: "LAST_ACK"}

// staleEntries is the filter of the stale entries of class cl, whose
// hold is now hold: that state's entries with more time left than the
// hold gives ("-p tcp --state ESTABLISHED --timeout-over 65"). "" for a
// class no filter tells apart from its protocol's others (UDP's two
// classes differ by a status bit conntrack's filter here does not take).
func staleEntries(cl Class, hold uint64) string {
	state, ok := staleStates[cl]
	if !ok || hold == 0 {
		return ""
	}
	return fmt.Sprintf("-p tcp --state %s --timeout-over %d", state, hold+overHoldSlack)
}
