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
// Text GitHub would autolink (a URL, www., an e-mail address) is set as
// code instead: no escape stops an autolink, a code span does.
func md(s string) string {
	if autolinks(s) {
		return codeSpan(s)
	}
	s = mdEscaper.Replace(s)
	if s != "" && strings.ContainsRune("-+=", rune(s[0])) {
		return `\` + s
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ') {
		return s[:i] + `\` + s[i:]
	}
	return s
}

// autolinks reports whether GFM's autolink extension would make a link of
// some of s: a scheme's "://", "www.", or an "@" between word characters.
func autolinks(s string) bool {
	l := strings.ToLower(s)
	if strings.Contains(l, "://") || strings.Contains(l, "www.") || strings.Contains(l, "mailto:") || strings.Contains(l, "xmpp:") {
		return true
	}
	i := strings.IndexByte(s, '@')
	return i > 0 && i < len(s)-1
}

// codeSpan sets s as inline code: fenced by more backticks than any run
// inside it, its table-cell bars escaped (GFM reads "\|" as "|" there too)
// and its line breaks as spaces.
func codeSpan(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	return fence + " " + s + " " + fence
}
