package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// manProse are the man page's sections whose words are the manual's:
// each is a two-column table under a heading of docs/commands.md, so a
// change there is a change of the page (TestManPageIsCurrent).
var manProse = []struct{ heading, section, indent string }{
	{"Exit status", "EXIT STATUS", "4"},
	{"Environment", "ENVIRONMENT", ""},
	{"Files", "FILES", ""},
	{"Examples", "EXAMPLES", ""},
}

// manDescription is the README's first paragraph in roff: the page
// describes tablefull in the words the README opens with.
func manDescription() (string, error) {
	readme, err := os.ReadFile("../../../../README.md")
	if err != nil {
		return "", fmt.Errorf("the man page's description: %w", err)
	}
	_, body, _ := strings.Cut(string(readme), "\n\n")
	para, _, _ := strings.Cut(body, "\n\n")
	if para == "" || strings.HasPrefix(para, "#") {
		return "", fmt.Errorf("the README opens with no paragraph")
	}
	return roffInline(strings.Join(strings.Fields(para), " ")) + "\n", nil
}

// manProseSections is the page's prose sections, each from its table in
// docs/commands.md.
func manProseSections() (string, error) {
	page, err := os.ReadFile("../../../../docs/commands.md")
	if err != nil {
		return "", fmt.Errorf("the man page's prose: %w", err)
	}
	var b strings.Builder
	for _, p := range manProse {
		rows, err := markdownTable(string(page), p.heading)
		if err != nil {
			return "", err
		}
		b.WriteString(".SH " + p.section + "\n")
		for i, row := range rows {
			tp := ".TP"
			if i == 0 && p.indent != "" {
				tp += " " + p.indent
			}
			term := roffInline(row[0])
			if strings.HasPrefix(row[0], "`") && strings.Count(row[0], "`") == 2 {
				term = ".B " + roffText(strings.Trim(row[0], "`"))
			} else if strings.HasPrefix(row[0], "*") && strings.Count(row[0], "*") == 2 {
				term = ".I " + roffText(strings.Trim(row[0], "*"))
			}
			fmt.Fprintf(&b, "%s\n%s\n%s\n", tp, term, roffInline(row[1]))
		}
	}
	return b.String(), nil
}

// markdownTable is the rows, header and rule left out, of the first
// two-column table under "## heading".
func markdownTable(page, heading string) ([][2]string, error) {
	_, after, ok := strings.Cut(page, "\n## "+heading+"\n")
	if !ok {
		return nil, fmt.Errorf("docs/commands.md has no section %q", heading)
	}
	section, _, _ := strings.Cut(after, "\n## ")
	var rows [][2]string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		if strings.Trim(line, "|-") == "" {
			rows = append(rows, [2]string{"---", "---"})
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 2 {
			return nil, fmt.Errorf("section %q: a row of %d cells: %q", heading, len(cells), line)
		}
		rows = append(rows, [2]string{strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])})
	}
	if len(rows) < 3 || !strings.HasPrefix(rows[1][0], "---") {
		return nil, fmt.Errorf("section %q holds no table", heading)
	}
	return rows[2:], nil
}

// inlineMarkup is Markdown's code, strong, emphasis and links.
var inlineMarkup = regexp.MustCompile("`([^`]+)`|\\*\\*([^*]+)\\*\\*|\\*([^*]+)\\*|\\[([^\\]]+)\\]\\([^)]+\\)")

// roffInline is a line of Markdown in roff: code and strong in bold,
// emphasis in italics, a link as its text.
func roffInline(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range inlineMarkup.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(roffText(s[last:m[0]]))
		switch {
		case m[2] >= 0:
			b.WriteString(`\fB` + roffText(s[m[2]:m[3]]) + `\fR`)
		case m[4] >= 0:
			b.WriteString(`\fB` + roffText(s[m[4]:m[5]]) + `\fR`)
		case m[6] >= 0:
			b.WriteString(`\fI` + roffText(s[m[6]:m[7]]) + `\fR`)
		default:
			b.WriteString(roffText(s[m[8]:m[9]]))
		}
		last = m[1]
	}
	b.WriteString(roffText(s[last:]))
	out := b.String()
	if strings.HasPrefix(out, ".") || strings.HasPrefix(out, "'") {
		out = `\&` + out
	}
	return out
}

// TestManProseIsTheManuals: each prose section of the page is its
// table in the manual, word for word, so the two cannot drift.
func TestManProseIsTheManuals(t *testing.T) {
	prose, err := manProseSections()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		".SH EXIT STATUS\n.TP 4\n.B 0\n",
		".TP\n.B NO_COLOR\nPresent (even empty): the console draws without colour.\n",
		".TP\n.I /var/lib/tablefull/\n",
		".B tablefull tune \\-\\-until\\-free \\-\\-yes \\-\\-persist\n",
		"\\fBtablefull tune \\-\\-undo\\fR restores it.",
	} {
		if !strings.Contains(prose, want) {
			t.Errorf("the page's prose lacks %q:\n%s", want, prose)
		}
	}
	if !strings.Contains(manPage, prose) {
		t.Error("tablefull.1's prose is not docs/commands.md's (go test ./cmd/tablefull/internal/cli -update-man)")
	}
	desc, err := manDescription()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(manPage, ".SH DESCRIPTION\n"+desc) || !strings.Contains(desc, `\fBnf_conntrack_count\fR`) {
		t.Errorf("tablefull.1's description is not the README's first paragraph: %q", desc)
	}
	if _, err := markdownTable("## Other\n", "Exit status"); err == nil {
		t.Error("a missing section was not refused")
	}
	if _, err := markdownTable("\n## Exit status\n\n| a | b | c |\n", "Exit status"); err == nil {
		t.Error("a three-column row was not refused")
	}
}
