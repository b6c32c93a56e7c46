// Package helptext writes tablefull's --help and its help command from
// the subcommand table's usage lines and flag sets, so that the help,
// the parser and the manual page cannot disagree.
package helptext

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"
)

// Head opens --help; each subcommand's usage lines follow it, then
// Cobra.
const Head = "tablefull: why are connections stalling? A live console for conntrack incidents.\n\nUsage:\n"

// Cobra is the usage of the commands cobra adds beside the table's.
const Cobra = `  tablefull help [SUBCOMMAND]              this help, or a subcommand's
  tablefull completion bash|zsh|fish|powershell
                                           a completion script for that shell
`

// Usage is Head, every subcommand's usage lines, then Cobra.
func Usage(usages []string) string {
	return Head + strings.Join(usages, "") + Cobra
}

// Section is a titled set of flags in a help.
type Section struct {
	Title string
	Flags *flag.FlagSet
}

// Help is a help made of head (the whole usage, or one subcommand's
// "Usage:" and lines), the flags every subcommand takes (global; nil for
// a subcommand that does nothing with them) and the own flags' sections.
func Help(head string, global *flag.FlagSet, own []Section) string {
	var b strings.Builder
	b.WriteString(head)
	if global != nil {
		b.WriteString("\nFlags of every subcommand (before or after its name):\n" + global.FlagUsages())
	}
	for _, s := range own {
		b.WriteString("\n" + s.Title + ":\n" + s.Flags.FlagUsages())
	}
	return b.String()
}

// Command is `tablefull help [SUBCOMMAND]`: the whole help, or a
// subcommand's; `help help` is the whole help, and a name that is no
// subcommand is an error made by usage (a usage error, as anywhere else
// on the command line).
func Command(root *cobra.Command, usage func(error) error) *cobra.Command {
	return &cobra.Command{Use: "help [SUBCOMMAND]", Short: "this help, or a subcommand's", SilenceErrors: true, SilenceUsage: true,
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usage(fmt.Errorf("help takes one subcommand, not %d", len(args)))
			case len(args) == 0 || args[0] == "help":
				return root.Help()
			}
			target, rest, err := root.Find(args)
			if err != nil || target == root || len(rest) > 0 {
				return usage(fmt.Errorf("unknown subcommand %q (tablefull help lists them)", args[0]))
			}
			return target.Help()
		}}
}
