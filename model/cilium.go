package model

import (
	"fmt"
	"strings"
)

// CiliumMaps are Cilium's BPF connection-tracking maps, where Cilium
// runs: it tracks its endpoints' flows there, beside (or instead of)
// nf_conntrack, and a map near its size evicts live flows whatever
// nf_conntrack says. nil: no map is pinned (Cilium does not run here).
type CiliumMaps struct {
	Maps []CiliumMap `json:"maps,omitempty"`
	// Note says why a map pinned here was not read.
	Note string `json:"note,omitempty"`
}

// CiliumMap is one map: its pinned name, its entries and its size.
type CiliumMap struct {
	Name    string `json:"name"`
	Entries uint64 `json:"entries"`
	Max     uint64 `json:"max"`
}

// MaxCiliumMaps bounds the maps a sample carries.
const MaxCiliumMaps = 8

// CiliumPressurePct is the fill at which a map is named: Cilium's own
// dashboards warn at it.
const CiliumPressurePct = 90

// fullest is the map with the highest fill, ok false when none is sized.
func (c *CiliumMaps) fullest() (CiliumMap, bool) {
	var top CiliumMap
	found := false
	for _, m := range c.Maps {
		if m.Max > 0 && (!found || Percent(m.Entries, m.Max) > Percent(top.Entries, top.Max)) {
			top, found = m, true
		}
	}
	return top, found
}

// CiliumKnob is the Cilium setting that sizes a map: the TCP maps' and
// the others'.
func CiliumKnob(name string) string {
	if strings.Contains(name, "_any") {
		return "bpf-ct-global-any-max"
	}
	return "bpf-ct-global-tcp-max"
}

// ruleCiliumMap: one of Cilium's conntrack maps is at CiliumPressurePct
// of its size or more: Cilium evicts (or fails to insert) its endpoints'
// flows, a limit that is Cilium's, not this kernel's table. Warning.
func ruleCiliumMap(in Inputs) (Verdict, bool) {
	c := in.Sample.Cilium
	if c == nil {
		return Verdict{}, false
	}
	m, ok := c.fullest()
	if !ok || Percent(m.Entries, m.Max) < CiliumPressurePct {
		return Verdict{}, false
	}
	ct := in.Sample.Conntrack
	table := fmt.Sprintf("nf_conntrack at %s of max %s", Int(ct.Count), Int(ct.Max))
	if ct.Status != TableTracked {
		table = "nf_conntrack not read"
	}
	return Verdict{Evidence: fmt.Sprintf(
		"Cilium's conntrack map %s holds %s of its %s entries (%.0f %%) with %s: the limit is Cilium's, not this kernel's table; near its size Cilium evicts live flows or fails to track new ones: raise %s (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
		m.Name, Int(m.Entries), Int(m.Max), Percent(m.Entries, m.Max), table, CiliumKnob(m.Name))}, true
}
