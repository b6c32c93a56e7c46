package model

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model/units"
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
func ruleZoneFull(in Inputs) (Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || c.ZoneLimits == nil {
		return Verdict{}, false
	}
	var full []string
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
		full = append(full, fmt.Sprintf("%s holds %s entries of its OVS limit %s", z.Key, units.Int(uint64(max(0, z.N))), units.Int(uint64(limit))))
		if first == "" {
			first = fmt.Sprintf("zone=%d", id)
		}
	}
	if len(full) == 0 {
		return Verdict{}, false
	}
	ct := in.Sample.Conntrack
	return Verdict{Evidence: fmt.Sprintf(
		"%s (the table at %s of max %s): OVS refuses that zone's new connections, whatever nf_conntrack_max says; raise it with ovs-appctl dpctl/ct-set-limits %s,limit=N",
		strings.Join(full, "; "), units.Int(ct.Count), units.Int(ct.Max), first)}, true
}
