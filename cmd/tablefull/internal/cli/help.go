package cli

import (
	_ "embed" // tablefull(1)

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/helptext"
)

// usage is the head, every subcommand's lines and cobra's.
func usage() string {
	var us []string
	for _, c := range subcommands {
		us = append(us, c.usage)
	}
	return helptext.Usage(us)
}

// help is --help for s, made from the same flag sets the command line
// parses, so the two cannot disagree. For the console (tablefull
// --help): the whole usage, the flags every subcommand takes, then every
// subcommand's own. For another subcommand: its usage lines, the shared
// flags (unless it reads no host) and its own.
func help(s subcommand) string {
	console := s.name == subcommands[0].name
	head := "Usage:\n" + s.usage
	if console {
		head = usage()
	}
	var global *flag.FlagSet
	if !s.hostless { // one that reads no host takes them and does nothing with them
		global = flag.NewFlagSet("tablefull", flag.ContinueOnError)
		global.SortFlags = false
		var o options
		o.register(global)
	}
	var own []helptext.Section
	for _, c := range subcommands {
		if c.flags == nil || (!console && c.name != s.name) {
			continue
		}
		title := "tablefull " + c.name
		if c.name == subcommands[0].name {
			title = "tablefull (the console)"
		}
		own = append(own, helptext.Section{Title: title, Flags: subcommandFlags(c)})
	}
	return helptext.Help(head, global, own)
}

// subcommandFlags is c's own flags, without the shared ones.
func subcommandFlags(c subcommand) *flag.FlagSet {
	fs := flag.NewFlagSet("tablefull "+c.name, flag.ContinueOnError)
	fs.SortFlags = false
	c.flags(fs, &flagValues{})
	return fs
}

// manPage is tablefull(1) in roff, written from the subcommand table,
// its flag sets and the console's keymap by `go test
// ./cmd/tablefull/internal/cli -update-man` (TestManPageIsCurrent fails when it is not theirs).
//
//go:embed tablefull.1
var manPage string
