package model

import (
	"strings"

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
func ruleCiliumMap(in Inputs) (verdict.Verdict, bool) {
	c := in.Sample.Cilium
	if c == nil {
		return verdict.Verdict{}, false
	}
	m, ok := c.fullest()
	refused := c.mapDrops()
	if (!ok || Percent(m.Entries, m.Max) < CiliumPressurePct) && len(refused) == 0 {
		return verdict.Verdict{}, false
	}
	ct := in.Sample.Conntrack
	var facts []verdict.Fact
	table := "nf_conntrack not read"
	if ct.Status == TableTracked {
		table = "nf_conntrack at {count} of max {max}"
		facts = append(facts, factCount(ct), factMax(ct))
	}
	dropT, dropF := refusals(refused)
	if !ok {
		return says(
			verdict.Say(verdict.Lead, "cilium.refused", "Cilium dropped "+dropT+", with "+table+" (its maps not read)", append(facts, dropF...)...),
			verdict.Say(verdict.Explain, "cilium.meaning", "the limit is Cilium's, not this kernel's table").After(": ")), true
	}
	what, near := "conntrack map", "Cilium evicts live flows or fails to track new ones"
	if CiliumNAT(m.Name) {
		what, near = "NAT map", "Cilium finds no free source port for new flows and drops them (its drop reason: no mapping for NAT masquerade)"
	}
	scope := "Cilium's map " + Sanitize(m.Name, 60)
	facts = append(facts, verdict.W("map", Sanitize(m.Name, 60)),
		verdict.N("entries", m.Entries, verdict.Entries).From("bpftool map, its entries", scope),
		verdict.N("size", m.Max, verdict.Entries).From("bpftool map, its max_entries", scope),
		verdict.N("full", Percent(m.Entries, m.Max), verdict.Percent).From("its entries ÷ its size", scope))
	lead := verdict.Say(verdict.Lead, "cilium.map", "Cilium's "+what+" {map} holds {entries} of its {size} entries ({full}) with "+table, facts...)
	cs := []verdict.Clause{lead}
	if t, f := m.filledBy(); t != "" {
		cs = append(cs, verdict.Say(verdict.Who, "cilium.filled-by", t, f...).After(", "))
	}
	if dropT != "" {
		cs = append(cs, verdict.Say(verdict.Numbers, "cilium.dropped", "since its previous read Cilium dropped "+dropT, dropF...))
	}
	return says(append(cs,
		verdict.Say(verdict.Explain, "cilium.meaning", "the limit is Cilium's, not this kernel's table").After(": "),
		verdict.Say(verdict.Fix, "cilium.fix", "near its size "+near+": raise {knob} (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
			verdict.W("knob", CiliumKnob(m.Name))))...), true
}

// FilledBy says who fills the map, where its keys said: ", opened most
// by 10.0.1.5 (800), to 10.96.0.10:53 (700)"; "" where they did not.
func (m CiliumMap) FilledBy() string {
	t, f := m.filledBy()
	if t == "" {
		return ""
	}
	return ", " + verdict.Say(verdict.Who, "", t, f...).Text()
}

// filledBy is FilledBy's template and facts.
func (m CiliumMap) filledBy() (string, []verdict.Fact) {
	src, scope := "the map's keys", "Cilium's map "+Sanitize(m.Name, 60)
	eps, epF := countList("endpoint", m.Endpoints, 48, src, scope)
	dests, destF := countList("dest", m.Dests, 48, src, scope)
	switch {
	case eps != "" && dests != "":
		return "opened most by " + eps + ", to " + dests, append(epF, destF...)
	case eps != "":
		return "opened most by " + eps, epF
	case dests != "":
		return "opened most to " + dests, destF
	}
	return "", nil
}
