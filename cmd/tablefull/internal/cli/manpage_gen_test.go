package cli

import (
	stdflag "flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/helptext"

	"github.com/charmbracelet/bubbles/key"
	flag "github.com/spf13/pflag"

	keymap "github.com/tablefull/tablefull/tui/keys"
)

// updateMan rewrites tablefull.1 from the table.
var updateMan = stdflag.Bool("update-man", false, "rewrite tablefull.1 from the subcommand table")

// TestManPageIsCurrent: the page the binary prints is the one the table,
// its flag sets and the keymap make.
func TestManPageIsCurrent(t *testing.T) {
	page := renderManPage()
	if *updateMan {
		if err := os.WriteFile("tablefull.1", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if manPage != page {
		t.Errorf("tablefull.1 is not the table's (go test ./cmd/tablefull/internal/cli -update-man rewrites it)")
	}
}

// renderManPage is tablefull(1) in roff, made from the same subcommand
// table and flag sets as --help, so the two cannot disagree.
func renderManPage() string {
	var b strings.Builder
	b.WriteString(".TH TABLEFULL 1 \"\" tablefull \"User Commands\"\n")
	b.WriteString(".SH NAME\ntablefull \\- why are connections stalling? A live console for conntrack incidents\n")
	b.WriteString(".SH SYNOPSIS\n")
	manSynopsis(&b, usage())
	b.WriteString(".SH DESCRIPTION\n")
	desc, err := manDescription()
	if err != nil {
		panic(err)
	}
	b.WriteString(desc)
	b.WriteString(".SH OPTIONS\n.SS \"Flags of every subcommand (before or after its name)\"\n")
	global := flag.NewFlagSet("tablefull", flag.ContinueOnError)
	global.SortFlags = false
	var o options
	o.register(global)
	manFlags(&b, global)
	for _, c := range subcommands {
		if c.flags == nil {
			continue
		}
		title := "tablefull " + c.name
		if c.name == "console" {
			title = "tablefull (the console)"
		}
		fmt.Fprintf(&b, ".SS %s\n", roffQuote(title))
		manFlags(&b, subcommandFlags(c))
	}
	manKeys(&b)
	prose, err := manProseSections()
	if err != nil {
		panic(err)
	}
	b.WriteString(prose)
	b.WriteString(manSeeAlso)
	return b.String()
}

// manFlags writes one .TP paragraph a flag, as FlagUsages lists them.
func manFlags(b *strings.Builder, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if f.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", f.Shorthand)
		}
		fmt.Fprintf(b, "\\fB%s\\fR", roffText("--"+f.Name))
		if name != "" && name != "bool" {
			fmt.Fprintf(b, " \\fI%s\\fR", roffText(name))
		}
		b.WriteString("\n" + roffLine(usage+defaultOf(f)) + "\n")
	})
}

// defaultOf is " (default X)" when the flag's default is not its type's
// zero value, as pflag's FlagUsages says it.
func defaultOf(f *flag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s":
		return ""
	}
	if f.Value.Type() == "string" {
		return fmt.Sprintf(" (default %q)", f.DefValue)
	}
	return " (default " + f.DefValue + ")"
}

// roffText escapes text inside a line: backslashes and hyphens.
func roffText(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`, "←", `\(<-`, "→", `\(->`, "↑", `\(ua`, "↓", `\(da`, "–", `\(en`, "—", `\(em`, "…", `...`, "×", `\(mu`).Replace(s)
}

// roffLine is roffText for a whole line, guarded against starting a
// request.
func roffLine(s string) string {
	s = roffText(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// roffQuote is a macro argument in double quotes.
func roffQuote(s string) string {
	return `"` + strings.ReplaceAll(roffText(s), `"`, `""`) + `"`
}

// manSynopsis writes the usage lines as filled paragraphs, each
// synopsis in bold with its description indented under it, so no line
// runs past 80 columns.
func manSynopsis(b *strings.Builder, u string) {
	open := false
	for _, line := range strings.Split(strings.TrimRight(strings.TrimPrefix(u, helptext.Head), "\n"), "\n") {
		line = strings.TrimSpace(line)
		synopsis, desc := line, ""
		if i := strings.Index(line, "   "); i >= 0 {
			synopsis, desc = line[:i], strings.TrimSpace(line[i:])
		}
		if !strings.HasPrefix(line, "tablefull") {
			synopsis, desc = "", line
		}
		if synopsis != "" {
			if open {
				b.WriteString(".RE\n")
			}
			name, rest, _ := strings.Cut(synopsis, " ")
			if words := strings.Fields(rest); len(words) > 0 && !strings.HasPrefix(words[0], "-") && !strings.HasPrefix(words[0], "[") {
				name, rest = name+" "+words[0], strings.TrimPrefix(strings.TrimPrefix(rest, words[0]), " ")
			}
			fmt.Fprintf(b, ".PP\n\\fB%s\\fR %s\n.RS 4\n", roffText(name), roffText(rest))
			open = true
		}
		if desc != "" {
			b.WriteString(roffLine(desc) + "\n")
		}
	}
	if open {
		b.WriteString(".RE\n")
	}
}

// manKeys writes the console's keys from its one keymap: the console,
// the tuning panel, the fleet view. It panics on a binding in none of
// them, so a new key cannot miss the page.
func manKeys(b *strings.Builder) {
	k := keymap.DefaultKeyMap()
	var console []key.Binding
	for _, col := range k.FullHelp() {
		console = append(console, col...)
	}
	groups := []struct {
		title    string
		bindings []key.Binding
	}{
		{"The console", console},
		{"The tuning panel (t)", k.TuningHelp()},
		{"The entries panel (E)", []key.Binding{k.EntrySort, k.EntryReverse, k.EntryFollow, k.EntryDelete}},
		{"The fleet view (--prometheus)", k.FleetKeys()},
	}
	listed := map[string]bool{} // a binding listed in two groups (esc) is one
	b.WriteString(".SH KEYS\n")
	for _, g := range groups {
		fmt.Fprintf(b, ".SS %s\n.PD 0\n", roffQuote(g.title))
		for _, binding := range g.bindings {
			h := binding.Help()
			fmt.Fprintf(b, ".TP 12\n\\fB%s\\fR\n%s\n", roffText(h.Key), roffLine(h.Desc))
			listed[h.Key+" "+h.Desc] = true
		}
		b.WriteString(".PD\n")
	}
	if all := reflect.TypeOf(k).NumField(); len(listed) != all {
		panic(fmt.Sprintf("the man page lists %d keys of the keymap's %d", len(listed), all))
	}
}

// manSeeAlso is the page's last section, which the manual has no
// table for.
const manSeeAlso = `.SH SEE ALSO
.BR conntrack (8),
.BR sysctl (8),
.BR prometheus (1)
`
