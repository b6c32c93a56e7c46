package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// CiliumDrop is one reason Cilium gives for the packets it dropped, as
// its metrics map (cilium_metrics) counts them: the packets, summed over
// CPUs and directions, since the map was made, and how many more than
// at the previous read (0 on the first).
type CiliumDrop struct {
	Reason  uint8  `json:"reason"`
	Name    string `json:"name"`
	Packets uint64 `json:"packets"`
	Rose    uint64 `json:"rose,omitempty"`
}

// The drop reasons of Cilium's conntrack and NAT maps (its
// DROP_CT_CREATE_FAILED and DROP_NAT_NO_MAPPING).
const (
	CiliumDropCTInsert  = 155
	CiliumDropNATNoPort = 167
)

// MaxCiliumDrops bounds the reasons a sample carries, most packets first.
const MaxCiliumDrops = 6

// mapDrops are the drops of Cilium's own maps that rose since the
// previous read: a map that refused an entry, whatever its fill now.
func (c *CiliumMaps) mapDrops() []CiliumDrop {
	var out []CiliumDrop
	for _, d := range c.Drops {
		if (d.Reason == CiliumDropCTInsert || d.Reason == CiliumDropNATNoPort) && d.Rose > 0 {
			out = append(out, d)
		}
	}
	return out
}

// DropsText says the drop reasons in a line: "CT: Map insertion failed
// 1,204 (+12), Policy denied 9", or why they were not read.
func (c *CiliumMaps) DropsText() string {
	if c.DropsNote != "" {
		return Sanitize(c.DropsNote, 200)
	}
	if len(c.Drops) == 0 {
		return "no drops counted"
	}
	var parts []string
	for _, d := range c.Drops {
		s := fmt.Sprintf("%s %s", Sanitize(d.Name, 60), units.Int(d.Packets))
		if d.Rose > 0 {
			s += " (+" + units.Int(d.Rose) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// refusals says the map drops that rose, a template and its facts: "12
// packets for CT: Map insertion failed"; "" for none.
func refusals(ds []CiliumDrop) (string, []verdict.Fact) {
	var parts []string
	var facts []verdict.Fact
	for i, d := range ds {
		n, name := "refused "+strconv.Itoa(i), "reason "+strconv.Itoa(i)
		parts = append(parts, "{"+n+"} packets for {"+name+"}")
		facts = append(facts, verdict.N(n, d.Rose, verdict.Packets).From("Cilium's drop counters", "since Cilium's previous read"),
			verdict.W(name, Sanitize(d.Name, 60)))
	}
	return strings.Join(parts, " and "), facts
}
