package model

import (
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// Allowance is a cloud NIC's own connection tracking, beside the
// kernel's: ENA counts the packets it refused because the instance
// tracks more connections than its type allows
// (conntrack_allowance_exceeded), whatever nf_conntrack says, and how
// many more it may track (conntrack_allowance_available).
type Allowance struct {
	Iface  string `json:"iface"`
	Driver string `json:"driver"`
	// Exceeded is the NIC's count of refused packets (cumulative).
	Exceeded uint64 `json:"exceeded"`
	// Available is how many more connections it may track, when
	// AvailableRead (newer drivers keep it).
	Available     uint64 `json:"available,omitempty"`
	AvailableRead bool   `json:"available_read,omitempty"`
}

// MaxAllowances bounds the NICs a sample carries.
const MaxAllowances = 8

// allowanceDelta is how many packets the NICs refused between two
// samples, and the NIC that refused most (matched by name: a NIC new in
// cur counts from its first sample on).
func allowanceDelta(prev, cur []Allowance) (uint64, Allowance) {
	var n, most uint64
	var top Allowance
	for _, c := range cur {
		for _, p := range prev {
			if p.Iface != c.Iface {
				continue
			}
			d := Increase(p.Exceeded, c.Exceeded)
			n += d
			if d > most {
				most, top = d, c
			}
		}
	}
	return n, top
}

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
	if c.Status == TableTracked {
		table = "nf_conntrack at {count} of max {max}"
		facts = append(facts, factCount(c), factMax(c))
	}
	return says(
		verdict.Say(verdict.Lead, "allowance", "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}"+left+") with "+table, facts...),
		verdict.Say(verdict.Explain, "allowance.meaning", "the limit is the instance type's, not this kernel's").After(": "),
		verdict.Say(verdict.Fix, "allowance.fix", "a larger instance type raises it, or fewer tracked flows (security-group rules that need no tracking)")), true
}
