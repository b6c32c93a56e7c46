package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleGCBehind: the count read as the census began is well above the
// entries its dump listed — expired entries the garbage collector has
// not reaped yet: the count drains lazily, so it (and arithmetic on it)
// overstates the table until they go. A dump reaps them as it passes, so
// the count read after it says whether they went. Warning: far from the
// cap they cost memory and a misleading count; at the cap they drop
// packets (early drop scans a few buckets only, and finds no expired
// entry to reap in a big table), which TABLE FULL says (expiredUnreaped).
// Same thresholds as STALE TIMEOUTS (StaleMin entries, StaleShareMin of
// the count).
func ruleGCBehind(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	expired, ok := c.unreaped()
	if !ok {
		return verdict.Verdict{}, false
	}
	listed := uint64(max(0, c.Total))
	walk := thisTable + ", the census's walk"
	after := verdict.Say(verdict.Numbers, "gc.reaped", "the dump reaped them: the count read {after} after it",
		verdict.N("after", c.CountAfter, verdict.Entries).From("nf_conntrack_count after the census", walk))
	if c.CountAfter >= listed+c.dying()+StaleMin {
		after = verdict.Say(verdict.Numbers, "gc.not-reaped", "the count still read {after} after it",
			verdict.N("after", c.CountAfter, verdict.Entries).From("nf_conntrack_count after the census", walk))
	}
	return says(
		verdict.Say(verdict.Lead, "gc.behind", "the count read {before} as the census began but its dump listed {listed} live entries: {expired} had expired and waited for the garbage collector",
			verdict.N("before", c.CountBefore, verdict.Entries).From("nf_conntrack_count as the census began", walk),
			verdict.N("listed", listed, verdict.Entries).From("a dump of the table, as conntrack -L lists it", walk),
			verdict.N("expired", expired, verdict.Entries).From("the count less the entries listed and those dying", walk)),
		verdict.Say(verdict.Explain, "gc.lazily", "(the count drains lazily; arithmetic on it overstated the table)").After(" "),
		after,
		verdict.Say(verdict.Fix, "gc.fix", "nothing to fix: the GC reaps them in its time, a dump or conntrack -F sooner")), true
}

// unreaped is how many entries the census's count had that its dump did
// not list, less those on the dying list, when they are StaleMin or more
// and StaleShareMin of the count: expired entries the garbage collector
// had not reaped.
func (c *Census) unreaped() (uint64, bool) {
	if c == nil || c.Error != "" || !c.CountRead || c.Approximate {
		return 0, false
	}
	return c.share(c.CountBefore - min(c.CountBefore, uint64(max(0, c.Total))+c.dying()))
}

// share reports n when it is StaleMin or more and StaleShareMin of the
// count the census read as it began.
func (c *Census) share(n uint64) (uint64, bool) {
	if n < StaleMin || float64(n) < StaleShareMin*float64(c.CountBefore) {
		return 0, false
	}
	return n, true
}

// dying is the census's dying list, 0 when not read.
func (c *Census) dying() uint64 {
	if !c.DyingRead {
		return 0
	}
	return min(c.Dying, c.CountBefore)
}

// ruleDyingList: a good part of the count is on the dying list — entries
// already ended and out of the table, still counted because a listener
// that asked for reliable event delivery (conntrackd's, with
// NETLINK_BROADCAST_ERROR) has not taken their DESTROY events. They are
// not expired entries the collector has not reached (GC BEHIND), and no
// dump, hold or max frees them: the listener reading does. Same
// thresholds as GC BEHIND.
func ruleDyingList(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || !c.CountRead || !c.DyingRead {
		return verdict.Verdict{}, false
	}
	n, ok := c.share(c.dying())
	if !ok {
		return verdict.Verdict{}, false
	}
	return says(
		verdict.Say(verdict.Lead, "dying", "{dying} of the {counted} entries counted are on the dying list (conntrack -L dying)",
			verdict.N("dying", n, verdict.Entries).From("conntrack -L dying", thisTable+", the census's walk"),
			verdict.N("counted", c.CountBefore, verdict.Entries).From("nf_conntrack_count as the census began", thisTable+", the census's walk")),
		verdict.Say(verdict.Explain, "dying.meaning", "ended and out of the table, still counted until a listener that asked for reliable delivery takes their DESTROY events; it is behind or stuck").After(": ")), true
}

// expiredUnreaped says, of a full table whose fresh census counted well
// more entries than its dump listed, that it holds expired entries the
// garbage collector has not reaped: it frees at the GC's pace, not at
// its hold's ("" otherwise). On this kernel a table of 1,024 entries
// with a 1 s hold stayed pinned for 40 s under 8 clients.
func expiredUnreaped(in Inputs) (verdict.Clause, bool) {
	n, ok := in.Census.unreaped()
	if !ok {
		return verdict.Clause{}, false
	}
	return verdict.Say(verdict.Explain, "gc.unreaped", "the last census counted {unreaped} entries its dump did not list: expired and not reaped, so the table frees at the garbage collector's pace, not its hold's (a dump reaps them: conntrack -L; a shorter hold does not help)",
		verdict.N("unreaped", n, verdict.Entries).From("nf_conntrack_count before the census less the entries its dump listed", thisTable+", the census's walk")), true
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
	switch d := min(c.dying(), unlisted); {
	case d > 0 && d == unlisted:
		why = "on the dying list"
	case d > 0:
		why = fmt.Sprintf("%s on the dying list, the rest expired, not yet reaped", units.Int(d))
	}
	return fmt.Sprintf("count %s as the dump began, %s after: %s counted but not listed (%s)",
		units.Int(c.CountBefore), units.Int(c.CountAfter), units.Int(unlisted), why)
}
