package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

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
	m, ok := c.Fullest()
	refused := c.MapDrops()
	if (!ok || arith.Percent(m.Entries, m.Max) < model.CiliumPressurePct) && len(refused) == 0 {
		return verdict.Verdict{}, false
	}
	ct := in.Sample.Conntrack
	var facts []verdict.Fact
	table := "nf_conntrack not read"
	if ct.Status == model.TableTracked {
		table = "nf_conntrack at {count} of max {max}"
		facts = append(facts, model.FactCount(ct), model.FactMax(ct))
	}
	dropT, dropF := model.Refusals(refused)
	if !ok {
		return says(
			verdict.Say(verdict.Lead, "cilium.refused", "Cilium dropped "+dropT+", with "+table+" (its maps not read)", append(facts, dropF...)...),
			verdict.Say(verdict.Explain, "cilium.meaning", "the limit is Cilium's, not this kernel's table").After(": ")), true
	}
	what, near := "conntrack map", "Cilium evicts live flows or fails to track new ones"
	if model.CiliumNAT(m.Name) {
		what, near = "NAT map", "Cilium finds no free source port for new flows and drops them (its drop reason: no mapping for NAT masquerade)"
	}
	scope := "Cilium's map " + safe.Text(m.Name, 60)
	facts = append(facts, verdict.W("map", safe.Text(m.Name, 60)),
		verdict.N("entries", m.Entries, verdict.Entries).From("bpftool map, its entries", scope),
		verdict.N("size", m.Max, verdict.Entries).From("bpftool map, its max_entries", scope),
		verdict.N("full", arith.Percent(m.Entries, m.Max), verdict.Percent).From("its entries ÷ its size", scope))
	lead := verdict.Say(verdict.Lead, "cilium.map", "Cilium's "+what+" {map} holds {entries} of its {size} entries ({full}) with "+table, facts...)
	cs := []verdict.Clause{lead}
	if t, f := m.FilledByFacts(); t != "" {
		cs = append(cs, verdict.Say(verdict.Who, "cilium.filled-by", t, f...).After(", "))
	}
	if dropT != "" {
		cs = append(cs, verdict.Say(verdict.Numbers, "cilium.dropped", "since its previous read Cilium dropped "+dropT, dropF...))
	}
	return says(append(cs,
		verdict.Say(verdict.Explain, "cilium.meaning", "the limit is Cilium's, not this kernel's table").After(": "),
		verdict.Say(verdict.Fix, "cilium.fix", "near its size "+near+": raise {knob} (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
			verdict.W("knob", model.CiliumKnob(m.Name))))...), true
}
