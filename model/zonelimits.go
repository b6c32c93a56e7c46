package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/tally"
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
	if v, ok := l.Own(z); ok {
		return v
	}
	return l.Default
}

// Own is zone z's own limit, ok false when it has none.
func (l *ZoneLimits) Own(z uint16) (uint32, bool) {
	for _, x := range l.Zones {
		if x.Zone == z {
			return x.Limit, true
		}
	}
	return 0, false
}

// ZoneFullPct is the share of its limit at which a zone counts as at it:
// the census's count runs a little behind the kernel's.
const ZoneFullPct = 95

// topZones is the n zones holding the most entries, zone 0 among them,
// or nil when every entry is in zone 0.
func (c *CensusCounter) topZones(n int) []tally.Count {
	if len(c.zones) == 0 {
		return nil
	}
	zoned := 0
	zs := make([]tally.Count, 0, len(c.zones)+1)
	for z, v := range c.zones {
		zs = append(zs, tally.Count{Key: ZoneKey(z), N: v})
		zoned += v
	}
	if rest := c.total - zoned; rest > 0 {
		zs = append(zs, tally.Count{Key: ZoneKey(0), N: rest})
	}
	return tally.TopCounts(zs, n)
}

// ZoneKey names conntrack zone z in the census's zone list.
func ZoneKey(z uint16) string { return "zone " + itoa(int(z)) }

// ZoneOf is the zone a key of the census's zone list names, ok false for
// a key that is not one (ZoneKey's inverse).
func ZoneOf(key string) (uint16, bool) {
	var z uint16
	_, err := fmt.Sscanf(key, "zone %d", &z)
	return z, err == nil && ZoneKey(z) == key
}
