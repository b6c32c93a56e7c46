package report

import (
	"fmt"
	"strings"
)

// Markdown is report.md: the same document, the charts as the .svg
// files written beside it.
func (r *Report) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", md(r.Heading()), md(r.meta()))
	for _, s := range r.sections() {
		fmt.Fprintf(&b, "\n## %s\n", md(s.Title))
		for _, p := range s.Paras {
			fmt.Fprintf(&b, "\n%s\n", md(p))
		}
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "\n![%s](%s.svg)\n\n*%s*\n", md(c.Name), c.Name, md(c.Caption))
		}
		for _, t := range s.Tables {
			b.WriteString("\n" + mdRow(t.Head))
			sep := make([]string, len(t.Head))
			for i := range sep {
				sep[i] = "---"
			}
			b.WriteString("|" + strings.Join(sep, "|") + "|\n")
			for _, row := range t.Rows {
				b.WriteString(mdRow(row))
			}
			if t.Note != "" {
				fmt.Fprintf(&b, "\n%s\n", md(t.Note))
			}
		}
	}
	return []byte(b.String())
}

func mdRow(cells []string) string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = md(c)
	}
	return "| " + strings.Join(out, " | ") + " |\n"
}

// mdEscaper escapes what Markdown (CommonMark and GitHub's tables) would
// read as markup or HTML: a recording's strings are text, never a link,
// an image, emphasis, a raw HTML tag or a table cell's end.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;",
	"&", "&amp;", "|", `\|`, "#", `\#`, "!", `\!`, "~", `\~`, "\n", " ", "\r", " ",
)

// md escapes text (already sanitised) for Markdown, and a start that
// would begin a list, a quote or a heading ("- ", "+ ", "1. ", "= ").
func md(s string) string {
	s = mdEscaper.Replace(s)
	if s != "" && strings.ContainsRune("-+=", rune(s[0])) {
		return `\` + s
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ') {
		return s[:i] + `\` + s[i:]
	}
	return s
}
