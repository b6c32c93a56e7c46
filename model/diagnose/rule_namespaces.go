package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleNamespaceFull: another namespace of the host is at the cap or
// dropping while this one is not full: a pod's or container's table,
// which the host's own numbers never show. Critical, named.
func ruleNamespaceFull(in Inputs) (verdict.Verdict, bool) {
	c := in.Sample.Conntrack
	if len(in.FullNS) == 0 || Pinned(c) || in.Rates.CTTotal.Get(model.Drop) > 0 {
		return verdict.Verdict{}, false
	}
	f := in.FullNS[0]
	cs := []verdict.Clause{f.Clause(c.Max),
		say(verdict.Explain, "netns.full.meaning").After(": ")}
	if n := len(in.FullNS) - 1; n > 0 {
		cs = append(cs, say(verdict.Numbers, "netns.more", verdict.N("more", n, verdict.Number).From("the namespaces read", "every namespace")))
	}
	v := says(cs...)
	v.Table = f.NS.Label()
	return v, true
}

// ruleNamespaceInsertDrops: another namespace dropped packets on
// inserting their entry, below its cap: a clash or a source NAT out of
// tuples in its ruleset, which tablefull does not read there. Never a
// full table: no cap frees it.
func ruleNamespaceInsertDrops(in Inputs) (verdict.Verdict, bool) {
	if len(in.InsertNS) == 0 {
		return verdict.Verdict{}, false
	}
	f := in.InsertNS[0]
	facts, scope := model.NSFacts(f.NS)
	facts = append(facts, verdict.N("insert drops", f.InsertDrops, verdict.Packets).From("its conntrack -S insert_failed", scope+", since the previous sample"),
		verdict.N("ns count", f.NS.Count, verdict.Entries).From("its nf_conntrack_count", scope),
		verdict.N("cap", in.Sample.Conntrack.Max, verdict.Entries).From("nf_conntrack_max (every namespace's cap)", "every namespace"))
	cs := []verdict.Clause{
		say(verdict.Lead, "netns.insert", facts...),
		say(verdict.Numbers, "netns.insert.not-full"),
		say(verdict.Explain, "netns.insert.meaning").After(": "),
	}
	if n := len(in.InsertNS) - 1; n > 0 {
		cs = append(cs, say(verdict.Numbers, "netns.insert.more", verdict.N("more", n, verdict.Number).From("the namespaces read", "every namespace")))
	}
	v := says(cs...)
	v.Table = f.NS.Label()
	return v, true
}

// namespacesNote is what an OK verdict says of the other namespaces:
// ", no namespace near its cap (12 others, the fullest netns lab at
// 300)"; ok is false when they were not looked for.
func namespacesNote(s model.Sample) (verdict.Clause, bool) {
	ns := s.Namespaces
	if ns == nil {
		return verdict.Clause{}, false
	}
	n := len(ns.Rows) + ns.Others
	if n == 0 { // none found, or none readable: the namespaces' note says which
		return say(verdict.Explain, "ok.netns-none").After(", "), true
	}
	top := ns.Rows[0]
	facts, scope := model.NSFacts(top)
	count := verdict.N("ns count", top.Count, verdict.Entries).From("its nf_conntrack_count", scope)
	if s.Conntrack.Max > 0 && arith.Percent(top.Count, s.Conntrack.Max) >= NearCapPct {
		return say(verdict.Numbers, "ok.netns-near", facts[0], count,
			verdict.N("cap", s.Conntrack.Max, verdict.Entries).From("nf_conntrack_max (every namespace's cap)", "every namespace")).After(", "), true
	}
	return say(verdict.Explain, "ok.netns",
		verdict.N("others", n, verdict.Number).From("the namespaces read", "every namespace"), facts[0], count).After(", "), true
}

// NamespacesNearCap reports whether another namespace of s is within
// FastWithinPct of the cap: its count is then read at 10 Hz too, so a
// burst to the cap between samples is its peak.
func NamespacesNearCap(s model.Sample) bool {
	ns, max := s.Namespaces, s.Conntrack.Max
	if ns == nil || max == 0 {
		return false
	}
	for _, r := range ns.Rows {
		if arith.Percent(r.Count, max) >= FastWithinPct || arith.Percent(r.Peak, max) >= FastWithinPct {
			return true
		}
	}
	return false
}
