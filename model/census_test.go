package model

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/tablefull/tablefull/model/tally"
)

func TestCensusCounter(t *testing.T) {
	var c CensusCounter
	srv := netip.MustParseAddr("10.5.5.14")
	for i := range 300 {
		c.Add(Flow{Proto: 6, Src: netip.MustParseAddr(fmt.Sprintf("10.5.5.%d", 15+i%3)), Dst: srv, DstPort: 3900, TCPState: 7})
	}
	for range 20 {
		c.Add(Flow{Proto: 6, Src: srv, Dst: netip.MustParseAddr("10.0.0.1"), DstPort: 443, TCPState: 3})
	}
	c.Add(Flow{Proto: 17, Src: srv, Dst: netip.MustParseAddr("10.0.0.53"), DstPort: 53, TCPState: -1})
	got := c.Census(3)
	if got.Total != 321 || got.ByProto["tcp"] != 320 || got.ByProto["udp"] != 1 {
		t.Errorf("totals %+v", got)
	}
	if got.TCPState["TIME_WAIT"] != 300 || got.TCPState["ESTABLISHED"] != 20 {
		t.Errorf("states %v", got.TCPState)
	}
	if got.TopPorts[0] != (tally.Count{Key: "tcp/3900", N: 300}) || got.TopPorts[1] != (tally.Count{Key: "tcp/443", N: 20}) {
		t.Errorf("ports %v", got.TopPorts)
	}
	if got.TopDests[0] != (tally.Count{Key: "10.5.5.14", N: 300}) || got.TopSources[0].N != 100 || got.Approximate {
		t.Errorf("addresses %v %v approximate=%v", got.TopDests, got.TopSources, got.Approximate)
	}
	if got.TopZones != nil {
		t.Errorf("zones %v where no entry carries one", got.TopZones)
	}
	if fmt.Sprint(got.TopTimeWaitDests) != "[{10.5.5.14 300}]" {
		t.Errorf("TIME_WAIT destinations %v", got.TopTimeWaitDests)
	}
}

// TestCensusZones: where entries carry zones, the census splits by zone,
// the default zone among them, heaviest first and bounded.
func TestCensusZones(t *testing.T) {
	for _, tc := range []struct {
		name  string
		zones map[uint16]int
		n     int
		want  []tally.Count
	}{
		{"no zones", map[uint16]int{0: 40}, 3, nil},
		{"one zone fills it", map[uint16]int{0: 10, 5: 300, 7: 20}, 3, []tally.Count{{Key: "zone 5", N: 300}, {Key: "zone 7", N: 20}, {Key: "zone 0", N: 10}}},
		{"every entry zoned", map[uint16]int{5: 3, 65535: 4}, 3, []tally.Count{{Key: "zone 65535", N: 4}, {Key: "zone 5", N: 3}}},
		{"bounded", map[uint16]int{1: 1, 2: 2, 3: 3, 4: 4}, 2, []tally.Count{{Key: "zone 4", N: 4}, {Key: "zone 3", N: 3}}},
	} {
		var c CensusCounter
		for z, n := range tc.zones {
			for range n {
				c.Add(Flow{Proto: 17, Zone: z, TCPState: -1})
			}
		}
		if got := c.Census(tc.n).TopZones; fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: zones %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSketchBoundedAndKeepsHeavyHitters: many distinct addresses do not
// grow memory past SketchSize, and a heavy hitter is still on top.
func TestSketchBoundedAndKeepsHeavyHitters(t *testing.T) {
	var c CensusCounter
	heavy := netip.MustParseAddr("192.0.2.1")
	for i := range 20000 {
		c.Add(Flow{Proto: 6, Src: netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}), Dst: heavy, DstPort: 80, TCPState: 3})
		if i%10 == 0 {
			c.Add(Flow{Proto: 6, Src: heavy, Dst: heavy, DstPort: 80, TCPState: 3})
		}
	}
	if c.src.Len() > tally.SketchSize {
		t.Errorf("sketch holds %d addresses, bound %d", c.src.Len(), tally.SketchSize)
	}
	got := c.Census(1)
	if got.TopSources[0].Key != "192.0.2.1" || !got.Approximate {
		t.Errorf("top source %v approximate=%v, want the heavy hitter, approximate", got.TopSources, got.Approximate)
	}
}

// TestCensusIdleOpen: ESTABLISHED entries idle over an hour are counted
// when the hold is known, and not counted (not zero) when it is not.
func TestCensusIdleOpen(t *testing.T) {
	est := func(left uint32) Flow { return Flow{Proto: 6, TCPState: 3, Timeout: left} }
	flows := []Flow{est(431990), est(428000), est(100), est(0), {Proto: 6, TCPState: 7, Timeout: 5}}
	c := NewCensusCounter(ClassCounts{ClassTCPOpen: 432000})
	for _, f := range flows {
		c.Add(f)
	}
	if got := c.Census(5); !got.IdleCounted || got.IdleOpen != 2 {
		t.Errorf("idle %d (counted %v), want 2 of the ESTABLISHED entries", got.IdleOpen, got.IdleCounted)
	}
	var blind CensusCounter
	for _, f := range flows {
		blind.Add(f)
	}
	if got := blind.Census(5); got.IdleCounted || got.IdleOpen != 0 {
		t.Errorf("without the hold: idle %d counted %v", got.IdleOpen, got.IdleCounted)
	}
	if IdleBelow(3000) != 0 || IdleBelow(0) != 0 || IdleBelow(7200) != 3600 {
		t.Errorf("IdleBelow: %d %d %d", IdleBelow(3000), IdleBelow(0), IdleBelow(7200))
	}
}

// TestTimeWaitTo: the TIME_WAIT entries to a destination are its count,
// 0 only when an exact census lists none, and unknown otherwise.
func TestTimeWaitTo(t *testing.T) {
	tw := []tally.Count{{Key: "10.0.0.9", N: 4}}
	for _, tc := range []struct {
		c    Census
		want string
	}{
		{Census{TopTimeWaitDests: tw}, "4"},
		{Census{TopTimeWaitDests: []tally.Count{}}, "0"},
		{Census{TopTimeWaitDests: []tally.Count{}, Approximate: true}, "an unknown number"},
		{Census{}, "an unknown number"}, // a census from before they were counted
	} {
		if got := timeWaitTo(&tc.c, "10.0.0.9").String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}
