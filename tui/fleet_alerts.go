package tui

import (
	"fmt"
	"strings"
)

// alertsLine counts the fleet's firing alerts and lists the page's
// beside the rows, the rows' order kept (worst host first), each with
// its instance and what
// Alertmanager does with it ("inhibited", "silenced"); "" when none
// fires. Every alert is counted, but only those the line has room for
// are rendered: a fleet of thousands costs the line its width. Why
// Alertmanager could not be read comes first, where it is not cut.
func (f *Fleet) alertsLine() string {
	var parts []string
	paged, suppressed, room := 0, 0, f.width
	for _, r := range f.page.Rows {
		for _, a := range r.Alerts {
			if a.Paged() {
				paged++
			} else {
				suppressed++
			}
			if room <= 0 {
				continue
			}
			text := foreign(a.Name) + " " + foreign(r.Instance)
			sty := f.st.Warn
			switch {
			case a.Inhibited:
				text, sty = text+" (inhibited)", f.st.Dim
			case a.Silenced:
				text, sty = text+" (silenced)", f.st.Dim
			case a.Severity == "critical":
				sty = f.st.Crit
			}
			room -= len(text) + len(" · ")
			parts = append(parts, sty.Render(text))
		}
	}
	firing := max(f.page.Totals.Firing, paged+suppressed) // the fleet's, beyond the page
	if firing == 0 {
		return ""
	}
	head := fmt.Sprintf("%d firing", firing)
	if suppressed > 0 {
		head += fmt.Sprintf(", %d suppressed", suppressed)
	}
	line := f.st.Label.Render(head + ":")
	if f.amNote != "" {
		line += f.st.Warn.Render(" (" + foreign(f.amNote) + ")")
	}
	return line + " " + strings.Join(parts, f.st.Dim.Render(" · "))
}
