package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleAllowance: a cloud NIC refused packets for its own connection
// tracking: the limit is the instance's, not this kernel's table.
// Critical: new flows are dropped before the host sees them.
func ruleAllowance(in Inputs) (verdict.Verdict, bool) {
	n := in.Rates.AllowanceExceeded
	if n == 0 {
		return verdict.Verdict{}, false
	}
	a := in.Rates.AllowanceNIC
	facts := []verdict.Fact{
		verdict.N("refused", n, verdict.Packets).From(a.Driver+" conntrack_allowance_exceeded on "+a.Iface, "the instance, the interval of "+units.Dur(in.Sample.Interval)),
		verdict.W("driver", a.Driver), verdict.W("iface", a.Iface)}
	left := ""
	if a.AvailableRead {
		left = ", {available} more it may track"
		facts = append(facts, verdict.N("available", a.Available, verdict.Number).From(a.Driver+" conntrack_allowance_available on "+a.Iface, "the instance"))
	}
	c := in.Sample.Conntrack
	table := "nf_conntrack not read"
	if c.Status == model.TableTracked {
		table = "nf_conntrack at {count} of max {max}"
		facts = append(facts, model.FactCount(c), model.FactMax(c))
	}
	return says(
		verdict.Say(verdict.Lead, "allowance", "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}"+left+") with "+table, facts...),
		verdict.Say(verdict.Explain, "allowance.meaning", "the limit is the instance type's, not this kernel's").After(": "),
		verdict.Say(verdict.Fix, "allowance.fix", "a larger instance type raises it, or fewer tracked flows (security-group rules that need no tracking)")), true
}
