package tui

import (
	"fmt"
	"strings"
)

// alertsLine lists the fleet's firing alerts beside the rows, the rows'
// order kept (worst host first), each with its instance and what
// Alertmanager does with it ("inhibited", "silenced"); "" when none
// fires. Alertmanager's note, when it could not be read, ends it.
func (f *Fleet) alertsLine() string {
	var parts []string
	paged, suppressed := 0, 0
	for _, r := range f.rows {
		for _, a := range r.Alerts {
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
			if a.Paged() {
				paged++
			} else {
				suppressed++
			}
			parts = append(parts, sty.Render(text))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	head := fmt.Sprintf("%d firing", paged+suppressed)
	if suppressed > 0 {
		head += fmt.Sprintf(", %d suppressed", suppressed)
	}
	line := f.st.Label.Render(head+":") + " " + strings.Join(parts, f.st.Dim.Render(" · "))
	if f.amNote != "" {
		line += f.st.Warn.Render(" — " + foreign(f.amNote))
	}
	return line
}
