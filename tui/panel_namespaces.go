package tui

import (
	"fmt"

	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// namespaceLines are the host's other network namespaces, most full
// first: each one's name, count against the one global cap, and whether
// it is full (at the cap, or dropping since the previous sample); then
// how many more there are, and (canOpen) the keys that open the selected
// one's console. Bounded by rows.
func namespaceLines(st *styles.Styles, f diagnose.Frame, sel int, canOpen bool, width, rows int) []string {
	ns := f.Sample.Namespaces
	if ns == nil {
		return []string{st.Dim.Render("no other namespace read: this feed is one namespace (a --netns or --ssh feed), or the host has none")}
	}
	full := map[uint64]uint64{}
	for _, x := range f.FullNS {
		full[x.NS.Inode] = x.Drops
	}
	capMax := f.Sample.Conntrack.Max
	var lines []string
	if ns.Note != "" {
		lines = append(lines, st.Warn.Render(truncate(foreign(ns.Note), width)))
	}
	if len(ns.Rows) == 0 {
		return append(lines, st.Dim.Render("no other namespace found"))
	}
	nameW := min(40, max(12, width-58))
	foot := 1 // how many more
	if canOpen {
		foot = 2
	}
	shown := 0
	for i, r := range ns.Rows {
		if len(lines) >= rows-foot && shown < len(ns.Rows) { // the last rows say how many more, and the keys
			break
		}
		shown++
		pct := arith.Percent(r.Count, capMax)
		sty := st.Value
		state := ""
		if d, ok := full[r.Inode]; ok {
			sty, state = st.Crit, st.Crit.Render(fmt.Sprintf("  FULL, %s drops", units.Int(d)))
		} else if pct >= diagnose.NearCapPct {
			sty = st.Warn
		}
		mark := "  "
		if canOpen && i == sel {
			mark = st.Title.Render("▸ ")
		}
		name := mark + fmt.Sprintf("%-*s", nameW, truncate(foreign(r.Label()), nameW))
		lines = append(lines, name+" "+sty.Render(fmt.Sprintf("%9s / %s (%3.0f %%)", units.Int(r.Count), units.Int(capMax), pct))+
			state+st.Dim.Render("  "+r.Within()))
	}
	rest, entries := ns.Others, ns.OthersEntries
	for _, r := range ns.Rows[shown:] {
		rest, entries = rest+1, entries+r.Count
	}
	if rest > 0 {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("+%d more namespaces, %s entries between them", rest, units.Int(entries))))
	}
	if canOpen {
		lines = append(lines, st.Dim.Render("↑/↓ namespace · enter its own console (esc there comes back) · esc close"))
	}
	return lines
}
