package main

import (
	"strings"

	flag "github.com/spf13/pflag"
)

// usageHead opens --help; each subcommand's usage lines follow it.
const usageHead = "tablefull: why are connections stalling? A live console for conntrack incidents.\n\nUsage:\n"

// usage is the head and every subcommand's lines.
func usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, c := range subcommands {
		b.WriteString(c.usage)
	}
	return b.String()
}

// help is --help for cmd, made from the same flag sets the command line
// parses, so the two cannot disagree: the usage, the flags every
// subcommand takes, then cmd's own — every subcommand's for the console,
// which is what `tablefull --help` asks.
func help(cmd subcommand) string {
	var b strings.Builder
	b.WriteString(usage())
	global := flag.NewFlagSet("tablefull", flag.ContinueOnError)
	global.SortFlags = false
	var o options
	o.register(global)
	b.WriteString("\nFlags of every subcommand:\n" + global.FlagUsages())
	for _, c := range subcommands {
		if c.flags == nil || (cmd.name != "console" && c.name != cmd.name) {
			continue
		}
		fs := subcommandFlags(c)
		title := "tablefull " + c.name
		if c.name == "console" {
			title = "tablefull (the console)"
		}
		b.WriteString("\n" + title + ":\n" + fs.FlagUsages())
	}
	return b.String()
}

// subcommandFlags is c's own flags, without the shared ones.
func subcommandFlags(c subcommand) *flag.FlagSet {
	fs := flag.NewFlagSet("tablefull "+c.name, flag.ContinueOnError)
	fs.SortFlags = false
	c.flags(fs, &flagValues{})
	return fs
}
