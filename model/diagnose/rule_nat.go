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
	return verdict.Say(verdict.Lead, "insert-drops", "{insert drops} packets dropped on inserting their entry (insert_failed and drop) while the count is {count} of max {max}",
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
	pool := p.Clause()
	cs := []verdict.Clause{counts,
		verdict.Say(verdict.Lead, "nat.ports", "the source NAT "+pool.Template+" finds no free source port for new flows (it tries {tries} before it drops, so drops begin before every port is taken)",
			append(pool.Facts, verdict.N("tries", model.NATTries, verdict.Number).From("nf_nat_l4proto_unique_tuple's attempts", "this kernel"))...).After(": ")}
	if b, ok := model.Busiest(in.Census, in.Sample.KernelRelease); ok {
		cs = append(cs, b)
	}
	return says(append(cs, model.NATRemedies(p, in.Sample.KernelRelease).After(": "),
		verdict.Say(verdict.Numbers, "nat.not-full", "not a full table"))...), true
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
		cs = append(cs, verdict.Say(verdict.Lead, "clash.recent", "flows clashed on a tuple ({why})", verdict.W("why", why)).After(": "))
	} else {
		cs = append(cs, verdict.Say(verdict.Lead, "clash.old", "two flows raced for one tuple ({why})", verdict.W("why", why)).After(": "))
	}
	if d, ok := model.DNSShare(in.Census); ok {
		cs = append(cs, d)
	}
	if recent {
		cs = append(cs, verdict.Say(verdict.Explain, "clash.recent.meaning", "this kernel resolves two UDP flows racing for one (clash_resolve, since 5.6), so these are what it cannot: two flows whose replies would share a tuple (a NAT mapping both to one), an entry already dying, or TCP; not the 5 s DNS race").After(" — "))
	} else {
		cs = append(cs, verdict.Say(verdict.Explain, "clash.old.meaning", "parallel UDP lookups behind a DNAT, the 5 s DNS delay on kernels before 5.6 (this one counts no resolved clashes)").After(" — "),
			verdict.Say(verdict.Fix, "clash.old.fix", "single-request-reopen, a node-local DNS cache or DNS over TCP").After(": "))
	}
	cs = append(cs, verdict.Say(verdict.Numbers, "clash.not-full", "not a full table"))
	if d, ok := resolvedClashes(in, "more "); ok {
		cs = append(cs, d)
	}
	return says(cs...), true
}

// resolvedClashes says the interval's clashes the kernel resolved (two
// flows raced for one tuple and both went through: no verdict of their
// own), "" when none: "; 40 clashes the kernel resolved (clash_resolve:
// harmless)". more is put before "clashes" beside the ones that dropped.
func resolvedClashes(in Inputs, more string) (verdict.Clause, bool) {
	if in.Rates.CTTotal.Get(model.ClashResolve) == 0 {
		return verdict.Clause{}, false
	}
	return verdict.Say(verdict.Explain, "clash.resolved", "{clash_resolve} "+more+"clashes the kernel resolved (clash_resolve: harmless)", factCounter(in, model.ClashResolve)), true
}
