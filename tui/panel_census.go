package tui

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// censusLines renders what fills the table: protocols, TCP states and the
// heaviest ports and addresses, from the newest census.
func censusLines(st *styles.Styles, c *model.Census, width, rows int) []string {
	if c == nil {
		return []string{st.Dim.Render("walking the table… (c hides the census and stops the walks)")}
	}
	if c.Error != "" {
		return []string{st.Warn.Render("census unavailable: " + foreign(c.Error))}
	}
	approx := ""
	if c.Approximate {
		approx = st.Dim.Render("  approximate")
	}
	lines := []string{
		st.Value.Render(units.Int(uint64(c.Total))+" entries") + st.Dim.Render(fmt.Sprintf("  walked in %s at %s, next in %s",
			c.Took.Round(1e6), c.At.Local().Format("15:04:05"), units.Dur(model.CensusEvery(c.Took)))) + approx,
		st.Label.Render("protocols ") + joinCounts(st, model.SortedCounts(c.ByProto), width),
		st.Label.Render("TCP states ") + joinCounts(st, model.SortedCounts(c.TCPState), width) + st.Dim.Render("  "+c.IdleText()),
		st.Label.Render("dst ports ") + joinCounts(st, c.TopPorts, width),
		st.Label.Render("sources ") + joinCounts(st, c.TopSources, width),
		st.Label.Render("destinations ") + joinCounts(st, namedDests(c), width),
	}
	if c.TopZones != nil { // where entries carry zones, which fill the table comes first
		lines = append(lines[:2], append([]string{st.Label.Render("zones ") + joinCounts(st, c.TopZones, width)}, lines[2:]...)...)
	}
	if c.Owners != nil {
		lines = append(lines, ownersLine(st, c.Owners))
	}
	if c.CountRead { // an old recording's census lacks it: nothing to say
		lines = append(lines, st.Dim.Render(c.CountText()))
	}
	return lines[:min(len(lines), rows)]
}

// namedDests are the top destinations, each with the Service kube-proxy
// names for it where it names one ("10.96.0.10 kube-system/kube-dns").
func namedDests(c *model.Census) []tally.Count {
	out := make([]tally.Count, len(c.TopDests))
	for i, d := range c.TopDests {
		out[i] = d
		if name := c.DestServices[d.Key]; name != "" {
			out[i].Key += " " + name
		}
	}
	return out
}

func joinCounts(st *styles.Styles, cs []tally.Count, width int) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, foreign(c.Key)+" "+st.Value.Render(units.Int(uint64(c.N))))
	}
	if len(parts) == 0 {
		return st.Dim.Render("none")
	}
	return strings.Join(parts, st.Dim.Render(styles.GlyphSep))
}

// ownersLine says who holds the entries: the owners most first, then
// what no socket here holds; names are foreign text.
func ownersLine(st *styles.Styles, o *model.Owners) string {
	head := st.Label.Render("by owner ")
	if o.Error != "" {
		return head + st.Warn.Render("not attributed: "+foreign(o.Error))
	}
	var parts []string
	for _, c := range o.Top {
		part := foreign(c.Who()) + " " + st.Value.Render(units.Int(uint64(c.N)))
		if p := c.PeerText(); p != "" {
			part += st.Dim.Render(" " + foreign(p))
		}
		parts = append(parts, part)
	}
	parts = append(parts, st.Dim.Render(o.UnownedText()))
	if o.Note != "" {
		parts = append(parts, st.Dim.Render(foreign(o.Note)))
	}
	return head + strings.Join(parts, st.Dim.Render(styles.GlyphSep))
}
