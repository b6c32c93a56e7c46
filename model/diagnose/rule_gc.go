package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
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
	expired, ok := c.Unreaped()
	if !ok {
		return verdict.Verdict{}, false
	}
	listed := uint64(max(0, c.Total))
	walk := model.ThisTable + ", the census's walk"
	after := say(verdict.Numbers, "gc.reaped",
		verdict.N("after", c.CountAfter, verdict.Entries).From("nf_conntrack_count after the census", walk))
	if c.CountAfter >= listed+c.DyingCounted()+model.StaleMin {
		after = say(verdict.Numbers, "gc.not-reaped",
			verdict.N("after", c.CountAfter, verdict.Entries).From("nf_conntrack_count after the census", walk))
	}
	return says(
		say(verdict.Lead, "gc.behind",
			verdict.N("before", c.CountBefore, verdict.Entries).From("nf_conntrack_count as the census began", walk),
			verdict.N("listed", listed, verdict.Entries).From("a dump of the table, as conntrack -L lists it", walk),
			verdict.N("expired", expired, verdict.Entries).From("the count less the entries listed and those dying", walk)),
		say(verdict.Explain, "gc.lazily").After(" "),
		after,
		say(verdict.Fix, "gc.fix")), true
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
	n, ok := c.Share(c.DyingCounted())
	if !ok {
		return verdict.Verdict{}, false
	}
	return says(
		say(verdict.Lead, "dying",
			verdict.N("dying", n, verdict.Entries).From("conntrack -L dying", model.ThisTable+", the census's walk"),
			verdict.N("counted", c.CountBefore, verdict.Entries).From("nf_conntrack_count as the census began", model.ThisTable+", the census's walk")),
		say(verdict.Explain, "dying.meaning").After(": ")), true
}

// expiredUnreaped says, of a full table whose fresh census counted well
// more entries than its dump listed, that it holds expired entries the
// garbage collector has not reaped: it frees at the GC's pace, not at
// its hold's ("" otherwise). On this kernel a table of 1,024 entries
// with a 1 s hold stayed pinned for 40 s under 8 clients.
func expiredUnreaped(in Inputs) (verdict.Clause, bool) {
	n, ok := in.Census.Unreaped()
	if !ok {
		return verdict.Clause{}, false
	}
	return say(verdict.Explain, "gc.unreaped",
		verdict.N("unreaped", n, verdict.Entries).From("nf_conntrack_count before the census less the entries its dump listed", model.ThisTable+", the census's walk")), true
}

// evictionNote says what a full table that drops with early_drop at 0
// can and cannot have evicted. Only established TCP and assured UDP
// streams are beyond eviction: then "nothing to evict", and the fix is
// max or the established timeout. When closing TCP entries fill it, the
// collector evicts them near the cap uncounted, so early_drop at 0 says
// nothing of them. "" when it evicted, or when that is not known. It
// returns the knobs the note rules out.
func evictionNote(in Inputs) (verdict.Clause, []string, bool) {
	r := in.Rates
	if r.CTTotal.Get(model.Drop) == 0 || r.CTTotal.Get(model.EarlyDrop) > 0 {
		return verdict.Clause{}, nil, false
	}
	notTimeWait := []string{knob.TimeWait}
	if cs := in.Census; cs != nil && cs.AssuredCounted && cs.Total > 0 {
		walk := model.ThisTable + ", the census's walk"
		census := model.FactCensus(cs)
		beyond, _ := cs.BeyondEviction()
		if beyond*10 >= cs.Total*9 {
			return say(verdict.Explain, "evict.nothing",
				verdict.N("beyond", beyond, verdict.Entries).From("the census: assured entries less closing TCP", walk), census,
				verdict.N("unreplied", cs.Unreplied, verdict.Entries).From("the census: entries never answered", walk)), notTimeWait, true
		}
		if closing := cs.GCEvictable(); closing*2 >= cs.Total {
			closed := verdict.N("closing", closing, verdict.Entries).From("the census: TCP in a closing state", walk)
			key, facts := "evict.gc", []verdict.Fact{closed, census}
			if ps, ok := r.Entries.Evicted(); ok && ps > 0 {
				key = "evict.gc.seen"
				facts = append(facts, verdict.N("evicted", ps, verdict.PerSecond).From("ctnetlink DESTROY events", intervalOf(in)))
			}
			if f := model.GCEvictFrom(in.Sample.Conntrack.Max); f > 0 {
				facts = append(facts, verdict.N("evicts to", f, verdict.Entries).From("gc_worker: nf_conntrack_max ÷ 100 × 95", model.ThisTable))
				return say(verdict.Explain, key, facts...), nil, true
			}
			return say(verdict.Explain, "evict.gc-none",
				closed, census), nil, true
		}
		return verdict.Clause{}, nil, false
	}
	if cf, ok := in.Fill.Top(); ok && cf.Class.Standing() && in.Fill.Counted {
		return say(verdict.Explain, "evict.standing",
			verdict.N("open", cf.Entries, verdict.Entries).From(in.Fill.shareSource(), model.ThisTable)), notTimeWait, true
	}
	return verdict.Clause{}, nil, false
}
