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
	key := "allowance"
	if a.AvailableRead {
		key += ".available"
		facts = append(facts, verdict.N("available", a.Available, verdict.Number).From(a.Driver+" conntrack_allowance_available on "+a.Iface, "the instance"))
	}
	if c := in.Sample.Conntrack; c.Status == model.TableTracked {
		facts = append(facts, model.FactCount(c), model.FactMax(c))
	} else {
		key += ".no-table"
	}
	return says(
		say(verdict.Lead, key, facts...),
		say(verdict.Explain, "allowance.meaning").After(": "),
		say(verdict.Fix, "allowance.fix")), true
}
