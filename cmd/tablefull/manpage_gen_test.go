package main

import (
	stdflag "flag"
	"fmt"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/helptext"
	"os"
	"reflect"
	"strings"
	"testing"

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
		t.Errorf("tablefull.1 is not the table's (go test ./cmd/tablefull -update-man rewrites it)")
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
	b.WriteString(roffLine("tablefull shows, within seconds, why connections stall on a Linux host: the conntrack table's count against its cap, "+
		"per-CPU drops, CPU and disk, TCP signals and the kernel's \"table full\" lines, a verdict, what fills the table, "+
		"and the tuning that frees it (proposed, applied, verified, persisted and undone). It runs as a console, "+
		"an agent for remote consoles, and a Prometheus exporter.") + "\n")
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
	b.WriteString(manTail)
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
	return strings.NewReplacer(`\`, `\e`, "-", `\-`, "←", `\(<-`, "→", `\(->`, "↑", `\(ua`, "↓", `\(da`, "–", `\(en`, "…", `...`, "×", `\(mu`).Replace(s)
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
		{"The entries panel (E)", []key.Binding{k.EntrySort, k.EntryReverse, k.EntryDelete}},
		{"The fleet view (--prometheus)", []key.Binding{k.RowUp, k.RowDown, k.PageUp, k.PageDown, k.Filter, k.Open, k.Live, k.Leave}},
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

// manTail is the page's sections that are not made from the table.
const manTail = `.SH ENVIRONMENT
.TP
.B GOGC
Go's collector setting. Unset, the console, a replay, the agent and the exporter collect at 50, half Go's default heap growth: a smaller peak RSS for little CPU.
.TP
.B NO_COLOR
Present (even empty): the console draws without colour.
.TP
.B TABLEFULL_PROMETHEUS_PASSWORD
The basic-auth password of \-\-prometheus (with \-\-prometheus\-user): a flag would show it in ps.
.TP
.B TABLEFULL_PROMETHEUS_TOKEN
A bearer token for \-\-prometheus.
.SH FILES
.TP
.I /etc/default/tablefull\-exporter
ARGS for the packaged exporter unit (a sample is in /usr/share/tablefull/).
.TP
.I /usr/share/tablefull/
Prometheus rules and their tests, a scrape configuration, an exporter\-toolkit web configuration, the notrack rules.
.TP
.I /var/lib/tablefull/
The undo record of the last tuning (\-\-state\-dir).
.SH EXIT STATUS
.TP 4
.B 0
Success; for \fBalive\fR: the heartbeat changed within \-\-within.
.TP
.B 1
Failure; for \fBalive\fR: the heartbeat is stale or missing.
.TP
.B 2
Bad usage: an unknown flag, subcommand or value.
.TP
.B 3
\fBtune\fR: nothing written (a bad value, \-\-yes missing, the memory cap, no privilege, read\-only, a global knob inside a child namespace); \fBentries \-\-delete\fR: nothing deleted (\-\-yes missing, established connections without \-\-established, an empty filter).
.TP
.B 4
\fBtune\fR: written, but a value did not read back as asked.
.TP
.B 5
\fBtune\fR: some changes written (and recorded for \-\-undo), then one failed.
.TP
.B 6
\fBtune \-\-until\-free\fR: still pinned after its steps (each applied, verified and recorded for \-\-undo).
.SH EXAMPLES
.TP
.B tablefull
The console on this host; press \fBt\fR for the tuning that frees a full table, \fB?\fR for the keys.
.TP
.B tablefull \-\-ssh web1 \-\-ssh web2 \-\-deploy
A tab for each host, over the system ssh; tablefull is copied where it is missing.
.TP
.B tablefull tune \-\-until\-free \-\-yes \-\-persist
Raise the table's cap in steps until it is free, and keep it across reboots; \fBtablefull tune \-\-undo\fR restores it.
.TP
.B tablefull record incident.jsonl \-\-duration 10m
Record the incident; \fBtablefull report incident.jsonl\fR writes its post\-mortem.
.TP
.B tablefull exporter \-\-web.listen\-address 0.0.0.0:9874
Serve the table to Prometheus; the rules are in /usr/share/tablefull/.
.SH SEE ALSO
.BR conntrack (8),
.BR sysctl (8),
.BR prometheus (1)
`
