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
	refusals := model.RefusalClauses(refused)
	if !ok {
		return says(append(append([]verdict.Clause{say(verdict.Lead, "cilium.refused")}, refusals...),
			ciliumTable(in.Sample.Conntrack, ".maps-unread").After(", "),
			say(verdict.Explain, "cilium.meaning").After(": "))...), true
	}
	kind := "cilium"
	if model.CiliumNAT(m.Name) {
		kind = "cilium.nat"
	}
	scope := "Cilium's map " + safe.Text(m.Name, 60)
	cs := []verdict.Clause{say(verdict.Lead, kind+".map", verdict.W("map", safe.Text(m.Name, 60)),
		verdict.N("entries", m.Entries, verdict.Entries).From("bpftool map, its entries", scope),
		verdict.N("size", m.Max, verdict.Entries).From("bpftool map, its max_entries", scope),
		verdict.N("full", arith.Percent(m.Entries, m.Max), verdict.Percent).From("its entries ÷ its size", scope)),
		ciliumTable(in.Sample.Conntrack, "").After(" ")}
	if by := m.FilledByClauses(); by != nil {
		cs = append(cs, by[0].After(", "))
		cs = append(cs, by[1:]...)
	}
	if refusals != nil {
		cs = append(append(cs, say(verdict.Numbers, "cilium.dropped")), refusals...)
	}
	return says(append(cs,
		say(verdict.Explain, "cilium.meaning").After(": "),
		say(verdict.Fix, kind+".fix", verdict.W("knob", model.CiliumKnob(m.Name))))...), true
}

// ciliumTable says nf_conntrack's fill beside Cilium's: "with
// nf_conntrack at 10 of max 4,096", or that it was not read.
func ciliumTable(ct model.Conntrack, variant string) verdict.Clause {
	if ct.Status != model.TableTracked {
		return say(verdict.Numbers, "cilium.no-table"+variant)
	}
	return say(verdict.Numbers, "cilium.table"+variant, model.FactCount(ct), model.FactMax(ct))
}
