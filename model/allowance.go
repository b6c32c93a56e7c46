package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
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
func ruleAllowance(in Inputs) (Verdict, bool) {
	n := in.Rates.AllowanceExceeded
	if n == 0 {
		return Verdict{}, false
	}
	a := in.Rates.AllowanceNIC
	left := ""
	if a.AvailableRead {
		left = fmt.Sprintf(", %s more it may track", units.Int(a.Available))
	}
	c := in.Sample.Conntrack
	table := fmt.Sprintf("nf_conntrack at %s of max %s", units.Int(c.Count), units.Int(c.Max))
	if c.Status != TableTracked {
		table = "nf_conntrack not read"
	}
	return Verdict{Evidence: fmt.Sprintf(
		"the instance's connection tracking refused %s packets (%s conntrack_allowance_exceeded on %s%s) with %s: the limit is the instance type's, not this kernel's; a larger instance type raises it, or fewer tracked flows (security-group rules that need no tracking)",
		units.Int(n), a.Driver, a.Iface, left, table)}, true
}
