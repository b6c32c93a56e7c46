package main

import (
	"fmt"
	"io"
	"strings"

	flag "github.com/spf13/pflag"
)

// writeManPage is manPage, set in init: the page is made from the
// subcommand table, whose man entry calls it.
var writeManPage func(io.Writer) error

func init() { writeManPage = manPage }

// manPage writes tablefull(1) in roff, made from the same subcommand
// table and flag sets as --help, so the two cannot disagree.
func manPage(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH TABLEFULL 1 \"\" %s \"User Commands\"\n", roffQuote("tablefull "+version))
	b.WriteString(".SH NAME\ntablefull \\- why are connections stalling? A live console for conntrack incidents\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	for _, c := range subcommands {
		for _, line := range strings.Split(strings.TrimRight(c.usage, "\n"), "\n") {
			b.WriteString(roffLine(strings.TrimPrefix(line, "  ")) + "\n")
		}
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	b.WriteString(roffLine("tablefull shows, within seconds, why connections stall on a Linux host: the conntrack table's count against its cap, "+
		"per-CPU drops, CPU and disk, TCP signals and the kernel's \"table full\" lines, a verdict, what fills the table, "+
		"and the tuning that frees it (proposed, applied, verified, persisted and undone). It runs as a console, "+
		"an agent for remote consoles, and a Prometheus exporter.") + "\n")
	b.WriteString(".SH OPTIONS\n.SS \"Flags of every subcommand\"\n")
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
	b.WriteString(`.SH FILES
.TP
.I /etc/default/tablefull-exporter
ARGS for the packaged exporter unit (a sample is in /usr/share/tablefull/).
.TP
.I /usr/share/tablefull/
Prometheus rules and their tests, a scrape configuration, an exporter-toolkit web configuration, the notrack rules.
.TP
.I /var/lib/tablefull/
The undo record of the last tuning (` + "`--state-dir`" + `).
.SH EXIT STATUS
0 on success, 1 on failure, 2 on bad usage.
.SH SEE ALSO
.BR conntrack (8),
.BR sysctl (8),
.BR prometheus (1)
`)
	_, err := io.WriteString(w, b.String())
	return err
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
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
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
