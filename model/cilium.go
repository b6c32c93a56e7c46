package model

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// CiliumMaps are Cilium's BPF connection-tracking maps, where Cilium
// runs: it tracks its endpoints' flows there, beside (or instead of)
// nf_conntrack, and a map near its size evicts live flows whatever
// nf_conntrack says. nil: no map is pinned (Cilium does not run here).
type CiliumMaps struct {
	Maps []CiliumMap `json:"maps,omitempty"`
	// Note says why a map pinned here was not read.
	Note string `json:"note,omitempty"`
	// Drops are the drop reasons of Cilium's metrics map, most packets
	// first (at most MaxCiliumDrops); DropsNote says why they were not
	// read (a layout tablefull does not know, no metrics map).
	Drops     []CiliumDrop `json:"drops,omitempty"`
	DropsNote string       `json:"drops_note,omitempty"`
}

// CiliumMap is one map: its pinned name, its entries and its size, and
// who fills it, read from its keys: the endpoints that opened most of
// its flows and the destinations most of them go to (MaxCiliumTops each;
// nil where the keys' layout is not one tablefull knows).
type CiliumMap struct {
	Name      string        `json:"name"`
	Entries   uint64        `json:"entries"`
	Max       uint64        `json:"max"`
	Endpoints []tally.Count `json:"endpoints,omitempty"`
	Dests     []tally.Count `json:"dests,omitempty"`
}

// MaxCiliumTops bounds the endpoints and destinations a map names.
const MaxCiliumTops = 3

// CiliumNAT reports whether a map is one of Cilium's SNAT maps
// (cilium_snat_v4_external), not a conntrack map.
func CiliumNAT(name string) bool { return strings.Contains(name, "_snat_") }

// MaxCiliumMaps bounds the maps a sample carries.
const MaxCiliumMaps = 8

// CiliumPressurePct is the fill at which a map is named: Cilium's own
// dashboards warn at it.
const CiliumPressurePct = 90

// Fullest is the map with the highest fill, ok false when none is sized.
func (c *CiliumMaps) Fullest() (CiliumMap, bool) {
	var top CiliumMap
	found := false
	for _, m := range c.Maps {
		if m.Max > 0 && (!found || arith.Percent(m.Entries, m.Max) > arith.Percent(top.Entries, top.Max)) {
			top, found = m, true
		}
	}
	return top, found
}

// CiliumKnob is the Cilium setting that sizes a map: the TCP conntrack
// maps', the others', and the NAT maps'.
func CiliumKnob(name string) string {
	if CiliumNAT(name) {
		return "bpf-nat-global-max"
	}
	if strings.Contains(name, "_any") {
		return "bpf-ct-global-any-max"
	}
	return "bpf-ct-global-tcp-max"
}

// FilledBy says who fills the map, where its keys said: ", opened most
// by 10.0.1.5 (800), to 10.96.0.10:53 (700)"; "" where they did not.
func (m CiliumMap) FilledBy() string {
	cs := m.FilledByClauses()
	if cs == nil {
		return ""
	}
	return ", " + verdict.Verdict{Clauses: cs}.Text()
}

// FilledByClauses are FilledBy's clauses, none where the keys said
// nothing.
func (m CiliumMap) FilledByClauses() []verdict.Clause {
	src, scope := "the map's keys", "Cilium's map "+safe.Text(m.Name, 60)
	var cs []verdict.Clause
	if len(m.Endpoints) > 0 {
		cs = append(cs, say(verdict.Who, "cilium.by"))
		cs = append(cs, countClauses(m.Endpoints, 48, src, scope)...)
	}
	if len(m.Dests) > 0 {
		if cs == nil {
			cs = append(cs, say(verdict.Who, "cilium.only-to"))
		} else {
			cs = append(cs, say(verdict.Who, "cilium.to").After(", "))
		}
		cs = append(cs, countClauses(m.Dests, 48, src, scope)...)
	}
	return cs
}

// CiliumDrop is one reason Cilium gives for the packets it dropped, as
// its metrics map (cilium_metrics) counts them: the packets, summed over
// CPUs and directions, since the map was made, and how many more than
// at the previous read (0 on the first).
type CiliumDrop struct {
	Reason  uint8  `json:"reason"`
	Name    string `json:"name"`
	Packets uint64 `json:"packets"`
	Rose    uint64 `json:"rose,omitempty"`
}

// The drop reasons of Cilium's conntrack and NAT maps (its
// DROP_CT_CREATE_FAILED and DROP_NAT_NO_MAPPING).
const (
	CiliumDropCTInsert  = 155
	CiliumDropNATNoPort = 167
)

// MaxCiliumDrops bounds the reasons a sample carries, most packets first.
const MaxCiliumDrops = 6

// MapDrops are the drops of Cilium's own maps that rose since the
// previous read: a map that refused an entry, whatever its fill now.
func (c *CiliumMaps) MapDrops() []CiliumDrop {
	var out []CiliumDrop
	for _, d := range c.Drops {
		if (d.Reason == CiliumDropCTInsert || d.Reason == CiliumDropNATNoPort) && d.Rose > 0 {
			out = append(out, d)
		}
	}
	return out
}

// DropsText says the drop reasons in a line: "CT: Map insertion failed
// 1,204 (+12), Policy denied 9", or why they were not read.
func (c *CiliumMaps) DropsText() string {
	if c.DropsNote != "" {
		return safe.Text(c.DropsNote, 200)
	}
	if len(c.Drops) == 0 {
		return "no drops counted"
	}
	var parts []string
	for _, d := range c.Drops {
		s := fmt.Sprintf("%s %s", safe.Text(d.Name, 60), units.Int(d.Packets))
		if d.Rose > 0 {
			s += " (+" + units.Int(d.Rose) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// RefusalClauses say the map drops that rose, a clause each, the first
// after a space: "12 packets for CT: Map insertion failed"; none for
// none.
func RefusalClauses(ds []CiliumDrop) []verdict.Clause {
	var out []verdict.Clause
	for i, d := range ds {
		sep := " and "
		if i == 0 {
			sep = " "
		}
		out = append(out, say(verdict.Numbers, "cilium.refusal",
			verdict.N("refused", d.Rose, verdict.Packets).From("Cilium's drop counters", "since Cilium's previous read"),
			verdict.W("reason", safe.Text(d.Name, 60))).After(sep))
	}
	return out
}
