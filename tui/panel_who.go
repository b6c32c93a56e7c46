package tui

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// whoLines render what the kernel probes counted over the trailing
// window: the owners opening the most connections, how long those lived,
// and whose packets the table dropped; or why nothing was counted.
// Every name is foreign text.
func whoLines(st *styles.Styles, w *model.Who, secs float64, width int) []string {
	head := st.Label.Render("new conns by owner ")
	switch {
	case w == nil:
		return nil
	case w.Note != "":
		return []string{head + st.Dim.Render(foreign(w.Note))}
	case len(w.Conns) == 0:
		return []string{head + st.Dim.Render(fmt.Sprintf("none in the last %s", units.Dur(diagnose.WhoWindow)))}
	}
	var parts []string
	for _, c := range w.Conns[:min(3, len(w.Conns))] {
		part := foreign(c.Owner.String()) + " " + st.Value.Render(units.Num(c.PerSec(secs))+"/s") + st.Dim.Render(" → "+foreign(c.DestText()))
		if m, ok := c.MedianLife(); ok {
			part += st.Dim.Render(" life <" + model.LifeText(m))
		}
		if c.Churning(secs) {
			part += st.Warn.Render(" one per request")
		}
		parts = append(parts, part)
	}
	lines := []string{head + strings.Join(parts, st.Dim.Render(styles.GlyphSep))}
	if w.Lost > 0 {
		lines[0] += st.Dim.Render(fmt.Sprintf("  (%s not counted: the probes' maps were full)", units.Int(w.Lost)))
	}
	if w.Limit != "" {
		lines[0] += st.Dim.Render("  (" + foreign(w.Limit) + ")")
	}
	if len(w.Drops) > 0 {
		var ds []string
		for _, d := range w.Drops[:min(3, len(w.Drops))] {
			who := d.Owner.String()
			if who == "unknown" {
				who = "from " + d.Src
			}
			ds = append(ds, foreign(who)+" "+st.Crit.Render(units.Int(d.N))+st.Dim.Render(" → "+foreign(d.Dest)))
		}
		lines = append(lines, st.Label.Render("drops by owner ")+strings.Join(ds, st.Dim.Render(styles.GlyphSep)))
	}
	for i := range lines {
		lines[i] = truncate(lines[i], width)
	}
	return lines
}
