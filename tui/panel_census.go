package tui

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
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
		st.Value.Render(model.Int(uint64(c.Total))+" entries") + st.Dim.Render(fmt.Sprintf("  walked in %s at %s, next in %s",
			c.Took.Round(1e6), c.At.Local().Format("15:04:05"), model.Dur(model.CensusEvery(c.Took)))) + approx,
		st.Label.Render("protocols ") + joinCounts(st, model.SortedCounts(c.ByProto), width),
		st.Label.Render("TCP states ") + joinCounts(st, model.SortedCounts(c.TCPState), width) + st.Dim.Render("  "+c.IdleText()),
		st.Label.Render("dst ports ") + joinCounts(st, c.TopPorts, width),
		st.Label.Render("sources ") + joinCounts(st, c.TopSources, width),
		st.Label.Render("destinations ") + joinCounts(st, c.TopDests, width),
	}
	return lines[:min(len(lines), rows)]
}

func joinCounts(st *styles.Styles, cs []model.Count, width int) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, foreign(c.Key)+" "+st.Value.Render(model.Int(uint64(c.N))))
	}
	if len(parts) == 0 {
		return st.Dim.Render("none")
	}
	return strings.Join(parts, st.Dim.Render(styles.GlyphSep))
}
