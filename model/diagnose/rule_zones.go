package diagnose

import (
	"fmt"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleZoneFull: a conntrack zone holds its OVS limit or near it: OVS
// refuses that zone's new connections whatever nf_conntrack_max says.
// Critical.
func ruleZoneFull(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || c.ZoneLimits == nil {
		return verdict.Verdict{}, false
	}
	var full []verdict.Clause
	first := ""
	for _, z := range c.TopZones {
		id, ok := model.ZoneOf(z.Key)
		if !ok {
			continue
		}
		limit := c.ZoneLimits.Of(id)
		if id == 0 {
			limit, _ = c.ZoneLimits.Own(0) // the default zone holds the host's own flows too: only a limit set for it counts
		}
		if limit == 0 || arith.Percent(uint64(max(0, z.N)), uint64(limit)) < model.ZoneFullPct {
			continue
		}
		full = append(full, say(verdict.Lead, "zone-full", verdict.W("zone", safe.Text(z.Key, 32)),
			verdict.N("n", max(0, z.N), verdict.Entries).From("the census's zones", model.ThisTable+", the census's walk"),
			verdict.N("limit", limit, verdict.Entries).From("ovs-appctl dpctl/ct-get-limits", "OVS")))
		if first == "" {
			first = fmt.Sprintf("zone=%d", id)
		}
	}
	if len(full) == 0 {
		return verdict.Verdict{}, false
	}
	ct := in.Sample.Conntrack
	return says(append(full,
		say(verdict.Numbers, "zone-full.table", model.FactCount(ct), model.FactMax(ct)).After(" "),
		say(verdict.Explain, "zone-full.meaning").After(": "),
		say(verdict.Fix, "zone-full.fix", verdict.W("zone", first)))...), true
}
