package model

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model/units"
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
	Name      string  `json:"name"`
	Entries   uint64  `json:"entries"`
	Max       uint64  `json:"max"`
	Endpoints []Count `json:"endpoints,omitempty"`
	Dests     []Count `json:"dests,omitempty"`
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

// ruleCiliumMap: one of Cilium's conntrack or NAT maps is at
// CiliumPressurePct of its size or more, or Cilium counted drops of its
// own maps refusing an entry (CT: Map insertion failed, no mapping for
// NAT masquerade) since its previous read, whatever their fill now: a
// limit that is Cilium's, not this kernel's table. Warning.
func ruleCiliumMap(in Inputs) (Verdict, bool) {
	c := in.Sample.Cilium
	if c == nil {
		return Verdict{}, false
	}
	m, ok := c.fullest()
	refused := c.mapDrops()
	if (!ok || Percent(m.Entries, m.Max) < CiliumPressurePct) && len(refused) == 0 {
		return Verdict{}, false
	}
	ct := in.Sample.Conntrack
	table := fmt.Sprintf("nf_conntrack at %s of max %s", units.Int(ct.Count), units.Int(ct.Max))
	if ct.Status != TableTracked {
		table = "nf_conntrack not read"
	}
	if !ok {
		return Verdict{Evidence: fmt.Sprintf("%s, with %s (its maps not read): the limit is Cilium's, not this kernel's table",
			strings.TrimPrefix(refusals(refused), "; since its previous read "), table)}, true
	}
	what, near := "conntrack map", "Cilium evicts live flows or fails to track new ones"
	if CiliumNAT(m.Name) {
		what, near = "NAT map", "Cilium finds no free source port for new flows and drops them (its drop reason: no mapping for NAT masquerade)"
	}
	return Verdict{Evidence: fmt.Sprintf(
		"Cilium's %s %s holds %s of its %s entries (%.0f %%) with %s%s%s: the limit is Cilium's, not this kernel's table; near its size %s: raise %s (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
		what, m.Name, units.Int(m.Entries), units.Int(m.Max), Percent(m.Entries, m.Max), table, m.FilledBy(), refusals(refused), near, CiliumKnob(m.Name))}, true
}

// FilledBy says who fills the map, where its keys said: ", opened most
// by 10.0.1.5 (800), to 10.96.0.10:53 (700)"; "" where they did not.
func (m CiliumMap) FilledBy() string {
	join := func(cs []Count) string {
		var parts []string
		for _, c := range cs {
			parts = append(parts, fmt.Sprintf("%s (%s)", Sanitize(c.Key, 48), units.Int(uint64(max(0, c.N)))))
		}
		return strings.Join(parts, ", ")
	}
	switch {
	case len(m.Endpoints) > 0 && len(m.Dests) > 0:
		return ", opened most by " + join(m.Endpoints) + ", to " + join(m.Dests)
	case len(m.Endpoints) > 0:
		return ", opened most by " + join(m.Endpoints)
	}
	return ""
}
