package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/tui/styles"
)

// section renders a panel: a title rule of the given width, then body
// lines, each cut to width, padded or cut to exactly height lines.
func section(st *styles.Styles, title string, width, height int, body []string) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	head := st.PanelTitle.Render(title) + " "
	if rest := width - lipgloss.Width(head); rest > 0 {
		head += st.Rule.Render(strings.Repeat(styles.GlyphRule, rest))
	}
	if height == 1 {
		return fit(head, width)
	}
	return fit(head, width) + "\n" + block(body, width, height-1)
}

// foreign is the one way text from outside the process (a stream, a
// recording, a file, a remote's error) reaches a view: escapes, controls
// and bidi overrides shown escaped, cut to safe.MaxText runes; fit and
// truncate bound it to the width.
func foreign(s string) string { return safe.Text(s, safe.MaxText) }

// fit cuts or pads a (styled) line to exactly width cells.
func fit(s string, width int) string {
	w := lipgloss.Width(s)
	if w > width {
		return truncate(s, width)
	}
	return s + strings.Repeat(" ", width-w)
}

// truncate cuts a styled string to width cells, ending in "…".
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// shortenMiddle cuts plain text to width cells by taking out its middle
// ("web-7f3a…c1e9"): a name keeps both ends, where names differ most.
func shortenMiddle(s string, width int) string {
	if lipgloss.Width(s) <= width {
		return s
	}
	if width <= 1 {
		return truncate(s, width)
	}
	r := []rune(s)
	head := (width - 1 + 1) / 2
	tail := width - 1 - head
	for head+tail+1 > width || lipgloss.Width(string(r[:head])+"…"+string(r[len(r)-tail:])) > width {
		if tail > 0 {
			tail--
		} else {
			head--
		}
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// wrap breaks plain text into lines of at most width cells, on spaces.
func wrap(text string, width int) []string {
	if width <= 0 {
		return nil
	}
	var lines []string
	var cur strings.Builder
	for _, word := range strings.Fields(text) {
		if cur.Len() > 0 && lipgloss.Width(cur.String())+1+lipgloss.Width(word) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(word)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// wrapN is wrap kept to at most n lines; the last one kept is cut (fit
// marks it with …).
func wrapN(text string, width, n int) []string {
	lines := wrap(text, width)
	if len(lines) > n {
		lines = lines[:n]
		lines[n-1] += " …"
	}
	return lines
}

// columns joins blocks side by side with one space between them. Each
// block's lines are as wide as its first, as section and block make them,
// so widths are measured once per block rather than once per line
// (lipgloss.JoinHorizontal measures every line, which was a third of a
// frame); a shorter block is padded below with blank lines.
func columns(blocks ...string) string {
	split := make([][]string, len(blocks))
	widths := make([]int, len(blocks))
	height := 0
	for i, b := range blocks {
		split[i] = strings.Split(b, "\n")
		widths[i] = lipgloss.Width(split[i][0])
		height = max(height, len(split[i]))
	}
	var out strings.Builder
	for y := range height {
		if y > 0 {
			out.WriteByte('\n')
		}
		for i, lines := range split {
			if i > 0 {
				out.WriteByte(' ')
			}
			if y < len(lines) {
				out.WriteString(lines[y])
			} else {
				out.WriteString(strings.Repeat(" ", widths[i]))
			}
		}
	}
	return out.String()
}

// pairs renders "label value" pairs on one line, separated by two spaces.
func pairs(st *styles.Styles, kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(st.Label.Render(kv[i]))
		b.WriteByte(' ')
		b.WriteString(kv[i+1])
	}
	return b.String()
}

// field is one label and value of a line of pairs, and how much it
// matters: the lowest priority goes first when the line is too long.
type field struct {
	label, value string
	// prio: 0 is kept to the last; higher numbers give way first.
	prio int
	// note: a remark on the field before it, one space after it.
	note bool
}

// pairsFit is pairs in width: whole fields only, the least important
// left out until the rest fit, never a field cut through its number and
// unit. A single field still too long is cut at the end.
func pairsFit(st *styles.Styles, width int, fields ...field) string {
	kept := slices.Clone(fields)
	render := func() string {
		var b strings.Builder
		for i, f := range kept {
			switch {
			case f.note:
				b.WriteString(" " + f.value)
				continue
			case i > 0:
				b.WriteString("  ")
			}
			if f.label != "" {
				b.WriteString(st.Label.Render(f.label) + " ")
			}
			b.WriteString(f.value)
		}
		return b.String()
	}
	for line := render(); lipgloss.Width(line) > width && len(kept) > 1; line = render() {
		worst := 0
		for i, f := range kept {
			if f.prio >= kept[worst].prio {
				worst = i
			}
		}
		kept = slices.Delete(kept, worst, worst+1)
	}
	return render()
}
