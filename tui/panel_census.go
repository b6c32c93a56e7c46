package tui

import (
	"fmt"
	"sort"
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
		st.Label.Render("protocols ") + joinCounts(st, sortedCounts(c.ByProto), width),
		st.Label.Render("TCP states ") + joinCounts(st, sortedCounts(c.TCPState), width),
		st.Label.Render("dst ports ") + joinCounts(st, c.TopPorts, width),
		st.Label.Render("sources ") + joinCounts(st, c.TopSources, width),
		st.Label.Render("destinations ") + joinCounts(st, c.TopDests, width),
	}
	return lines[:min(len(lines), rows)]
}

func sortedCounts(m map[string]int) []model.Count {
	out := make([]model.Count, 0, len(m))
	for k, v := range m {
		out = append(out, model.Count{Key: k, N: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N > out[j].N || (out[i].N == out[j].N && out[i].Key < out[j].Key) })
	return out
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
