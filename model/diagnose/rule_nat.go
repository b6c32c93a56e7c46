package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// insertDropCounts says the interval's insert drops while the table is
// not at its cap; ok is false when there were none, or it is pinned (a
// full table's drops are its own).
func insertDropCounts(in Inputs) (verdict.Clause, bool) {
	n := in.Rates.InsertDrops()
	c := in.Sample.Conntrack
	if n == 0 || Pinned(c) {
		return verdict.Clause{}, false
	}
	return say(verdict.Lead, "insert-drops",
		verdict.N("insert drops", n, verdict.Packets).From("conntrack -S insert_failed beyond chaintoolong, at most drop", intervalOf(in)), model.FactCount(c), model.FactMax(c)), true
}

// ruleNATPorts: packets dropped on inserting their entry while the table
// is not at its cap, with source NAT in the ruleset: the pool ran out of
// tuples, and every new flow to that destination fails. Never a full
// table.
func ruleNATPorts(in Inputs) (verdict.Verdict, bool) {
	counts, ok := insertDropCounts(in)
	p, nat := in.Sample.NAT.Narrowest()
	if !ok || !nat {
		return verdict.Verdict{}, false
	}
	cs := append([]verdict.Clause{counts, p.OutOfPorts().After(": ")}, model.Busiest(in.Census, in.Sample.KernelRelease)...)
	remedies := model.NATRemedies(p, in.Sample.KernelRelease)
	remedies[0] = remedies[0].After(": ")
	return says(append(append(cs, remedies...),
		say(verdict.Numbers, "nat.not-full"))...), true
}

// ruleInsertClash: packets dropped on inserting their entry while the
// table is not at its cap, with no source NAT in the ruleset: flows
// clashed on a tuple. Never a full table. Which flows, the kernel's
// version decides: before 5.6 two UDP flows racing for one tuple
// (parallel lookups behind a DNAT) lost one; since nf_ct_resolve_clash
// harder the kernel keeps both and counts clash_resolve (a counter from
// 5.10 on), so on a kernel that reports it the drops are reply-tuple
// clashes, dying entries or TCP.
func ruleInsertClash(in Inputs) (verdict.Verdict, bool) {
	counts, ok := insertDropCounts(in)
	if _, nat := in.Sample.NAT.Narrowest(); !ok || nat {
		return verdict.Verdict{}, false
	}
	why := "the ruleset was not read"
	if nat := in.Sample.NAT; nat != nil {
		why = "no source NAT in the ruleset"
		if nat.Note != "" {
			why = "the ruleset was not read: " + nat.Note
		}
	}
	cs := []verdict.Clause{counts}
	recent := in.Sample.CTStats.Reports(model.ClashResolve) // a kernel that counts resolved clashes resolves UDP's (5.6 on)
	if recent {
		cs = append(cs, say(verdict.Lead, "clash.recent", verdict.W("why", why)).After(": "))
	} else {
		cs = append(cs, say(verdict.Lead, "clash.old", verdict.W("why", why)).After(": "))
	}
	if d, ok := model.DNSShare(in.Census); ok {
		cs = append(cs, d)
	}
	if recent {
		cs = append(cs, say(verdict.Explain, "clash.recent.meaning").After(" — "))
	} else {
		cs = append(cs, say(verdict.Explain, "clash.old.meaning").After(" — "),
			say(verdict.Fix, "clash.old.fix").After(": "))
	}
	cs = append(cs, say(verdict.Numbers, "clash.not-full"))
	if d, ok := resolvedClashes(in, ".more"); ok {
		cs = append(cs, d)
	}
	return says(cs...), true
}

// resolvedClashes says the interval's clashes the kernel resolved (two
// flows raced for one tuple and both went through: no verdict of their
// own), "" when none: "; 40 clashes the kernel resolved (clash_resolve:
// harmless)"; variant ".more" says "more clashes", beside the ones that
// dropped.
func resolvedClashes(in Inputs, variant string) (verdict.Clause, bool) {
	if in.Rates.CTTotal.Get(model.ClashResolve) == 0 {
		return verdict.Clause{}, false
	}
	return say(verdict.Explain, "clash.resolved"+variant, factCounter(in, model.ClashResolve)), true
}
