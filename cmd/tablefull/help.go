package main

import (
	_ "embed" // tablefull(1)
	"strings"

	flag "github.com/spf13/pflag"
)

// usageHead opens --help; each subcommand's usage lines follow it, then
// cobraUsage.
const usageHead = "tablefull: why are connections stalling? A live console for conntrack incidents.\n\nUsage:\n"

// cobraUsage is the usage of the commands cobra adds beside the table's.
const cobraUsage = `  tablefull help [SUBCOMMAND]              this help, or a subcommand's
  tablefull completion bash|zsh|fish|powershell
                                           a completion script for that shell
`

// usage is the head, every subcommand's lines and cobra's.
func usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, c := range subcommands {
		b.WriteString(c.usage)
	}
	b.WriteString(cobraUsage)
	return b.String()
}

// help is --help for s, made from the same flag sets the command line
// parses, so the two cannot disagree. For the console (tablefull
// --help): the whole usage, the flags every subcommand takes, then every
// subcommand's own. For another subcommand: its usage lines, the shared
// flags (unless it reads no host) and its own.
func help(s subcommand) string {
	var b strings.Builder
	if s.name == subcommands[0].name {
		b.WriteString(usage())
	} else {
		b.WriteString("Usage:\n" + s.usage)
	}
	if !s.hostless { // one that reads no host takes them and does nothing with them
		global := flag.NewFlagSet("tablefull", flag.ContinueOnError)
		global.SortFlags = false
		var o options
		o.register(global)
		b.WriteString("\nFlags of every subcommand (before or after its name):\n" + global.FlagUsages())
	}
	for _, c := range subcommands {
		if c.flags == nil || (s.name != subcommands[0].name && c.name != s.name) {
			continue
		}
		title := "tablefull " + c.name
		if c.name == subcommands[0].name {
			title = "tablefull (the console)"
		}
		b.WriteString("\n" + title + ":\n" + subcommandFlags(c).FlagUsages())
	}
	return b.String()
}

// entry is the table's subcommand called name.
func entry(name string) subcommand {
	for _, s := range subcommands {
		if s.name == name {
			return s
		}
	}
	return subcommands[0]
}

// subcommandFlags is c's own flags, without the shared ones.
func subcommandFlags(c subcommand) *flag.FlagSet {
	fs := flag.NewFlagSet("tablefull "+c.name, flag.ContinueOnError)
	fs.SortFlags = false
	c.flags(fs, &flagValues{})
	return fs
}

// manPage is tablefull(1) in roff, written from the subcommand table,
// its flag sets and the console's keymap by `go test ./cmd/tablefull
// -update-man` (TestManPageIsCurrent fails when it is not theirs).
//
//go:embed tablefull.1
var manPage string
