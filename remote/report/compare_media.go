package report

import (
	"strings"
	"unicode/utf8"

	"github.com/tablefull/tablefull/model/compare"
)

// CompareText is c for a terminal: what differs across hosts and kernels
// first, the sides, the knobs, the conclusion, then a row a figure.
func CompareText(c compare.Comparison) string {
	p := pageOf(c)
	var b strings.Builder
	for _, group := range [][]string{p.lead, p.sides, p.knobs, p.said} {
		for _, l := range group {
			b.WriteString(l + "\n")
		}
		if len(group) > 0 {
			b.WriteString("\n")
		}
	}
	widths := make([]int, len(p.head))
	for _, row := range append([][]string{p.head}, p.rows...) {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range append([][]string{p.head}, p.rows...) {
		var line strings.Builder
		for i, cell := range row {
			line.WriteString(cell)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// CompareMarkdown is c as a Markdown section: the same lines, the rows a
// table, every string escaped.
func CompareMarkdown(c compare.Comparison) string {
	p := pageOf(c)
	var b strings.Builder
	b.WriteString("# Before and after\n\n")
	for _, group := range [][]string{p.lead, p.sides, p.knobs, p.said} {
		for _, l := range group {
			b.WriteString("- " + md(l) + "\n")
		}
		if len(group) > 0 {
			b.WriteString("\n")
		}
	}
	b.WriteString(mdRow(p.head))
	b.WriteString("|" + strings.Repeat(" --- |", len(p.head)) + "\n")
	for _, row := range p.rows {
		b.WriteString(mdRow(row))
	}
	return b.String()
}
