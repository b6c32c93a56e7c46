package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// EvictPct is how full a table must be for the garbage collector to
// evict on a failed early drop's behalf: over 95 % of max. From there on
// the count touches the cap rather than resting on it.
const EvictPct = 95.0

// gcEvictableStates are the TCP states whose assured entries the
// kernel's garbage collector still evicts once a failed early drop has
// asked it to, while the count is over 95 % of max
// (gc_worker_can_early_drop → tcp_can_early_drop): the closing states.
var gcEvictableStates = []string{"FIN_WAIT", "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE"}

// BeyondEviction is how many of the census's entries neither the packet
// path's early drop (unassured entries only) nor the garbage collector's
// eviction near the cap (those and assured TCP in a closing state) can
// free: established TCP and assured UDP streams. It is the assured count
// less the closing TCP states; a closing entry that was never assured is
// evictable anyway, so this is a lower bound. ok is false when the
// census did not count what was assured.
func (c *Census) BeyondEviction() (n int, ok bool) {
	if c == nil || !c.AssuredCounted {
		return 0, false
	}
	return max(c.Assured-c.GCEvictable(), 0), true
}

// GCEvictable counts the census's TCP entries in the closing states the
// garbage collector evicts near the cap, even assured.
func (c *Census) GCEvictable() int {
	if c == nil {
		return 0
	}
	n := 0
	for _, s := range gcEvictableStates {
		n += c.TCPState[s]
	}
	return n
}

// GCEvictFrom is the count over which the kernel's garbage collector,
// once a failed early drop has asked it to, evicts what it can of a
// table capped at max: gc_worker's nf_conntrack_max / 100u * 95u, in
// unsigned integers, so a cap under 100 gives 0 and the collector evicts
// nothing (256 gives 190, 777 gives 665). It evicts down to this count,
// not below it.
func GCEvictFrom(max uint64) uint64 {
	return max / 100 * 95
}

// Unreaped is how many entries the census's count had that its dump did
// not list, less those on the dying list, when they are StaleMin or more
// and StaleShareMin of the count: expired entries the garbage collector
// had not reaped.
func (c *Census) Unreaped() (uint64, bool) {
	if c == nil || c.Error != "" || !c.CountRead || c.Approximate {
		return 0, false
	}
	return c.Share(c.CountBefore - min(c.CountBefore, uint64(max(0, c.Total))+c.DyingCounted()))
}

// Share reports n when it is StaleMin or more and StaleShareMin of the
// count the census read as it began.
func (c *Census) Share(n uint64) (uint64, bool) {
	if n < StaleMin || float64(n) < StaleShareMin*float64(c.CountBefore) {
		return 0, false
	}
	return n, true
}

// DyingCounted is the census's dying list, 0 when not read.
func (c *Census) DyingCounted() uint64 {
	if !c.DyingRead {
		return 0
	}
	return min(c.Dying, c.CountBefore)
}

// CountText says what the count read as the dump began and after it, and
// how many entries it counted that the dump did not list (expired, not
// yet reaped), or that it was not read (never "0" for not known).
func (c Census) CountText() string {
	if !c.CountRead {
		return "the count around the dump not read"
	}
	unlisted := c.CountBefore - min(c.CountBefore, uint64(max(0, c.Total)))
	why := "expired, not yet reaped"
	switch d := min(c.DyingCounted(), unlisted); {
	case d > 0 && d == unlisted:
		why = "on the dying list"
	case d > 0:
		why = fmt.Sprintf("%s on the dying list, the rest expired, not yet reaped", units.Int(d))
	}
	return fmt.Sprintf("count %s as the dump began, %s after: %s counted but not listed (%s)",
		units.Int(c.CountBefore), units.Int(c.CountAfter), units.Int(unlisted), why)
}

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

// staleStates are the TCP state a class's stale entries are in, as
// conntrack(8) names it.
var staleStates = map[Class]string{ClassTCPOpen: "ESTABLISHED", ClassTCPDone: "TIME_WAIT", ClassTCPReset: "CLOSE", ClassTCPUnanswered: "SYN_SENT", ClassTCPHalfOpen: "SYN_RECV", ClassTCPLastAck: "LAST_ACK"}

// StaleEntries is the filter of the stale entries of class cl, whose
// hold is now hold: that state's entries with more time left than the
// hold gives ("-p tcp --state ESTABLISHED --timeout-over 65"). "" for a
// class no filter tells apart from its protocol's others (UDP's two
// classes differ by a status bit conntrack's filter here does not take).
func StaleEntries(cl Class, hold uint64) string {
	state, ok := staleStates[cl]
	if !ok || hold == 0 {
		return ""
	}
	return fmt.Sprintf("-p tcp --state %s --timeout-over %d", state, hold+overHoldSlack)
}
