package model

import "github.com/tablefull/tablefull/model/verdict"

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

// evictionNote says what a full table that drops with early_drop at 0
// can and cannot have evicted. Only established TCP and assured UDP
// streams are beyond eviction: then "nothing to evict", and the fix is
// max or the established timeout. When closing TCP entries fill it, the
// collector evicts them near the cap uncounted, so early_drop at 0 says
// nothing of them. "" when it evicted, or when that is not known. It
// returns the knobs the note rules out.
func evictionNote(in Inputs) (verdict.Clause, []string, bool) {
	r := in.Rates
	if r.CTTotal.Get(Drop) == 0 || r.CTTotal.Get(EarlyDrop) > 0 {
		return verdict.Clause{}, nil, false
	}
	notTimeWait := []string{KnobTimeWait}
	const raise = "raise nf_conntrack_max or lower the established timeout, not the TIME_WAIT hold"
	if cs := in.Census; cs != nil && cs.AssuredCounted && cs.Total > 0 {
		walk := thisTable + ", the census's walk"
		census := factCensus(cs)
		beyond, _ := cs.BeyondEviction()
		if beyond*10 >= cs.Total*9 {
			return verdict.Say(verdict.Explain, "evict.nothing", "nothing to evict: {beyond} of the census's {census} entries are established TCP or assured UDP streams ({unreplied} unreplied), which neither early drop nor the garbage collector frees: "+raise,
				verdict.N("beyond", beyond, verdict.Entries).From("the census: assured entries less closing TCP", walk), census,
				verdict.N("unreplied", cs.Unreplied, verdict.Entries).From("the census: entries never answered", walk)), notTimeWait, true
		}
		if closing := cs.GCEvictable(); closing*2 >= cs.Total {
			closed := verdict.N("closing", closing, verdict.Entries).From("the census: TCP in a closing state", walk)
			t, facts := "", []verdict.Fact{closed, census}
			if ps, ok := r.Entries.Evicted(); ok && ps > 0 {
				t = " ({evicted}/s evicted, seen in DESTROY events)"
				facts = append(facts, verdict.N("evicted", ps, verdict.PerSecond).From("ctnetlink DESTROY events", intervalOf(in)))
			}
			if f := GCEvictFrom(in.Sample.Conntrack.Max); f > 0 {
				facts = append(facts, verdict.N("evicts to", f, verdict.Entries).From("gc_worker: nf_conntrack_max ÷ 100 × 95", thisTable))
				return verdict.Say(verdict.Explain, "evict.gc", "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: the garbage collector evicts those near the cap without counting them"+t+", only down to {evicts to} (max ÷ 100 × 95) and at its next run, and their hold (TIME_WAIT's most often) is what frees the table",
					facts...), nil, true
			}
			return verdict.Say(verdict.Explain, "evict.gc-none", "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: under a cap of 100 the garbage collector evicts nothing (max ÷ 100 × 95 is 0), so their hold (TIME_WAIT's most often) alone frees the table",
				closed, census), nil, true
		}
		return verdict.Clause{}, nil, false
	}
	if cf, ok := in.Fill.Top(); ok && cf.Class.Standing() && in.Fill.Counted {
		return verdict.Say(verdict.Explain, "evict.standing", "nothing to evict: {open} entries stand open (established), which neither early drop nor the garbage collector frees: "+raise,
			verdict.N("open", cf.Entries, verdict.Entries).From(in.Fill.shareSource(), thisTable)), notTimeWait, true
	}
	return verdict.Clause{}, nil, false
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
