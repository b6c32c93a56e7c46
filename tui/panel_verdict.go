package tui

import (
	"strings"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/tui/styles"
)

// severityStyle picks the style of a severity.
func severityStyle(st *styles.Styles, s verdict.Severity) styles.Text {
	switch s {
	case verdict.SevCrit:
		return st.Crit
	case verdict.SevWarn:
		return st.Warn
	}
	return st.OK
}

// renderVerdict draws the most severe verdict with its evidence, wrapped to
// at most maxLines lines, then the other verdicts that hold on one line.
func renderVerdict(st *styles.Styles, f diagnose.Frame, width, maxLines int) []string {
	if len(f.Verdicts) == 0 {
		return []string{st.Dim.Render("waiting for the first sample…")}
	}
	top := f.Verdicts[0]
	sty := severityStyle(st, top.Severity)
	head := string(top.Kind)
	budget := maxLines
	if len(f.Verdicts) > 1 {
		budget--
	}
	// The verdict chooses what a width shows: its explanation gives way
	// first, never the numbers, the class or who; a number is never cut
	// from its unit. Evidence quotes foreign names: each line is cleaned.
	var lines []string
	for i, l := range top.Lines(width, max(1, budget)) {
		l = foreign(l)
		if i == 0 {
			l = sty.Render(head) + strings.TrimPrefix(l, head)
		}
		lines = append(lines, l)
	}
	if len(f.Verdicts) > 1 {
		var also []string
		for _, v := range f.Verdicts[1:] {
			also = append(also, severityStyle(st, v.Severity).Render(string(v.Kind)))
		}
		lines = append(lines, st.Label.Render("also: ")+strings.Join(also, st.Dim.Render(styles.GlyphSep)))
	}
	return lines
}
