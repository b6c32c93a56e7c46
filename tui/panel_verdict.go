package tui

import (
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/styles"
)

// severityStyle picks the style of a severity.
func severityStyle(st *styles.Styles, s model.Severity) styles.Text {
	switch s {
	case model.SevCrit:
		return st.Crit
	case model.SevWarn:
		return st.Warn
	}
	return st.OK
}

// renderVerdict draws the most severe verdict with its evidence, wrapped to
// at most maxLines lines, then the other verdicts that hold on one line.
func renderVerdict(st *styles.Styles, f model.Frame, width, maxLines int) []string {
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
	evidence := foreign(top.Evidence) // evidence quotes foreign keys
	text := wrap(head+" — "+evidence, width)
	// Too long: whole clauses are left out from the end ("; …"), never a
	// number cut from its noun; a first clause that alone is too long is
	// cut at the end.
	for clauses := strings.Split(evidence, "; "); len(text) > max(1, budget) && len(clauses) > 1; {
		clauses = clauses[:len(clauses)-1]
		text = wrap(head+" — "+strings.Join(clauses, "; ")+"; …", width)
	}
	if len(text) > max(1, budget) {
		text = text[:max(1, budget)]
		text[len(text)-1] = truncate(text[len(text)-1]+" …", width)
	}
	var lines []string
	for i, l := range text {
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
