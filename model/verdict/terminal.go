package verdict

import (
	"strings"
	"unicode/utf8"
)

// nbsp joins what a line must not break: a number and its unit, a
// number and the word after it.
const nbsp = '\u00a0'

// glue is written after a fact's value: the space that follows it
// becomes nbsp.
const glue = '\u2060'

// termFact is a fact as the terminal prints it: its inner spaces kept
// together, and glued to the word after it.
func termFact(f Fact) string {
	return strings.ReplaceAll(f.String(), " ", string(nbsp)) + string(glue)
}

// Lines renders "KIND — evidence" in at most n lines of width cells,
// wrapping between words and never between a number and its unit. When
// it does not fit, clauses are left out by weight — the explanation
// first, then the fix, who, the class, the numbers; of equal weight the
// later first — and " …" says so; a lead that alone does not fit is cut.
func (v Verdict) Lines(width, n int) []string {
	width, n = max(width, 8), max(n, 1)
	keep := make([]bool, len(v.Clauses))
	for i := range keep {
		keep[i] = true
	}
	cut := false
	for {
		var cs []Clause
		for i, c := range v.Clauses {
			if keep[i] {
				cs = append(cs, c)
			}
		}
		text := string(v.Kind) + " — " + joined(cs, func(c Clause) string { return c.render(termFact) })
		if cut {
			text += " …"
		}
		lines := wrapWords(text, width)
		if len(lines) <= n {
			return lines
		}
		drop := -1
		for i := len(v.Clauses) - 1; i > 0; i-- {
			if keep[i] && (drop < 0 || v.Clauses[i].Weight > v.Clauses[drop].Weight) {
				drop = i
			}
		}
		if drop < 0 {
			lines = lines[:n]
			last := []rune(lines[n-1])
			if len(last) > width-2 {
				last = last[:width-2]
			}
			lines[n-1] = strings.TrimRight(string(last), " ") + " …"
			return lines
		}
		keep[drop], cut = false, true
	}
}

// wrapWords breaks text into lines of at most width runes at its plain
// spaces; a word longer than a line is cut.
func wrapWords(text string, width int) []string {
	text = strings.ReplaceAll(text, string(glue)+" ", string(nbsp))
	text = strings.ReplaceAll(text, string(glue), "")
	var lines []string
	line := ""
	for _, w := range strings.Split(text, " ") {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
		for utf8.RuneCountInString(line) > width {
			r := []rune(line)
			lines = append(lines, string(r[:width]))
			line = string(r[width:])
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	for i := range lines {
		lines[i] = strings.ReplaceAll(lines[i], string(nbsp), " ")
	}
	return lines
}
