package model

import "fmt"

// topZones is the n zones holding the most entries, zone 0 among them,
// or nil when every entry is in zone 0.
func (c *CensusCounter) topZones(n int) []Count {
	if len(c.zones) == 0 {
		return nil
	}
	zoned := 0
	zs := make([]Count, 0, len(c.zones)+1)
	for z, v := range c.zones {
		zs = append(zs, Count{ZoneKey(z), v})
		zoned += v
	}
	if rest := c.total - zoned; rest > 0 {
		zs = append(zs, Count{ZoneKey(0), rest})
	}
	return TopCounts(zs, n)
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
