package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/verdict"
)

// ZoneLimits are Open vSwitch's connection limits per conntrack zone,
// where OVS sets them: a zone at its limit refuses new connections while
// nf_conntrack is far from its own cap.
type ZoneLimits struct {
	// Default applies to the zones without a limit of their own (0: no
	// limit).
	Default uint32      `json:"default,omitempty"`
	Zones   []ZoneLimit `json:"zones,omitempty"`
}

// ZoneLimit is one zone's own limit.
type ZoneLimit struct {
	Zone  uint16 `json:"zone"`
	Limit uint32 `json:"limit"`
}

// MaxZoneLimits bounds the zones' limits a census carries.
const MaxZoneLimits = 64

// Of is zone z's limit (its own, else the default; 0: none).
func (l *ZoneLimits) Of(z uint16) uint32 {
	if v, ok := l.own(z); ok {
		return v
	}
	return l.Default
}

// own is zone z's own limit, ok false when it has none.
func (l *ZoneLimits) own(z uint16) (uint32, bool) {
	for _, x := range l.Zones {
		if x.Zone == z {
			return x.Limit, true
		}
	}
	return 0, false
}

// zoneFullPct is the share of its limit at which a zone counts as at it:
// the census's count runs a little behind the kernel's.
const zoneFullPct = 95

// ruleZoneFull: a conntrack zone holds its OVS limit or near it: OVS
// refuses that zone's new connections whatever nf_conntrack_max says.
// Critical.
func ruleZoneFull(in Inputs) (verdict.Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || c.ZoneLimits == nil {
		return verdict.Verdict{}, false
	}
	var full []string
	var facts []verdict.Fact
	first := ""
	for _, z := range c.TopZones {
		id, ok := ZoneOf(z.Key)
		if !ok {
			continue
		}
		limit := c.ZoneLimits.Of(id)
		if id == 0 {
			limit, _ = c.ZoneLimits.own(0) // the default zone holds the host's own flows too: only a limit set for it counts
		}
		if limit == 0 || Percent(uint64(max(0, z.N)), uint64(limit)) < zoneFullPct {
			continue
		}
		k := "zone " + strconv.Itoa(len(full))
		full = append(full, "{"+k+"} holds {"+k+" n} entries of its OVS limit {"+k+" limit}")
		facts = append(facts, verdict.W(k, Sanitize(z.Key, 32)),
			verdict.N(k+" n", max(0, z.N), verdict.Entries).From("the census's zones", thisTable+", the census's walk"),
			verdict.N(k+" limit", limit, verdict.Entries).From("ovs-appctl dpctl/ct-get-limits", "OVS"))
		if first == "" {
			first = fmt.Sprintf("zone=%d", id)
		}
	}
	if len(full) == 0 {
		return verdict.Verdict{}, false
	}
	ct := in.Sample.Conntrack
	return says(
		verdict.Say(verdict.Lead, "zone-full", strings.Join(full, "; ")+" (the table at {count} of max {max})", append(facts, factCount(ct), factMax(ct))...),
		verdict.Say(verdict.Explain, "zone-full.meaning", "OVS refuses that zone's new connections, whatever nf_conntrack_max says").After(": "),
		verdict.Say(verdict.Fix, "zone-full.fix", "raise it with ovs-appctl dpctl/ct-set-limits {zone},limit=N", verdict.W("zone", first))), true
}
