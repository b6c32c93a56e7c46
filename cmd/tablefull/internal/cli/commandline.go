package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/helptext"
	"github.com/tablefull/tablefull/remote/exporter"
)

// commandLine is the subcommand table as a cobra tree: the console at
// its root, every other subcommand under it, the shared flags on the
// root for every one (before or after the subcommand's name), and
// cobra's help and completion commands beside them. Help goes to stdout,
// errors to stderr, printed once by run.
func commandLine(stdout, stderr io.Writer) *cobra.Command {
	o := &options{}
	var root *cobra.Command
	for _, s := range subcommands {
		v := &flagValues{}
		c := &cobra.Command{Use: s.name, Short: s.short(), Args: s.args(v), SilenceErrors: true, SilenceUsage: true,
			Annotations: map[string]string{tableEntry: s.name}}
		c.Flags().SortFlags = false
		if s.flags != nil {
			s.flags(c.Flags(), v)
		}
		c.RunE = func(c *cobra.Command, _ []string) error {
			if o.version {
				_, err := fmt.Fprintln(stdout, exporter.VersionText())
				return err
			}
			if err := o.check(c); err != nil {
				return err
			}
			return s.run(*o, v, stdout, stderr)
		}
		if root == nil {
			root = c
			c.Use = "tablefull"
			c.PersistentFlags().SortFlags = false
			o.register(c.PersistentFlags())
			continue
		}
		root.AddCommand(c)
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	cobraHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		name, ours := c.Annotations[tableEntry]
		if !ours {
			cobraHelp(c, args) // cobra's own: help, completion
			return
		}
		fmt.Fprint(c.OutOrStdout(), help(subcommands[max(0, slices.IndexFunc(subcommands, func(s subcommand) bool { return s.name == name }))]))
	})
	root.SetHelpCommand(helptext.Command(root, func(err error) error { return usageError{err} }))
	return root
}

// tableEntry annotates the commands made from the subcommand table.
const tableEntry = "tablefull"

// short is the first line of s's usage without its synopsis: cobra's
// one-line description.
func (s subcommand) short() string {
	line, _, _ := strings.Cut(s.usage, "\n")
	if i := strings.Index(line, "   "); i >= 0 {
		return strings.TrimSpace(line[i:])
	}
	return strings.TrimSpace(line)
}

// args checks s's positional argument once the flags are parsed (some
// make it optional) and stores it: bad usage, exit 2, otherwise.
func (s subcommand) args(v *flagValues) cobra.PositionalArgs {
	return func(c *cobra.Command, pos []string) error {
		if s.variadic {
			v.args = pos
			return nil
		}
		if s.positional != "" {
			switch {
			case len(pos) < 1 && s.optional != nil && s.optional(v):
			case len(pos) < 1:
				return usageError{fmt.Errorf("missing %s", s.positional)}
			default:
				v.arg = pos[0]
				pos = pos[1:]
			}
		}
		if len(pos) > 0 {
			if c.HasParent() {
				return usageError{fmt.Errorf("unexpected argument %q", pos[0])}
			}
			return usageError{fmt.Errorf("unknown subcommand %q (tablefull help lists them)", pos[0])}
		}
		return nil
	}
}

// check is the shared flags' validation.
func (o *options) check(c *cobra.Command) error {
	o.intervalSet = c.Flags().Changed("interval")
	if o.interval < 100*time.Millisecond {
		return usageError{fmt.Errorf("--interval must be at least 100ms")}
	}
	if speed, err := c.Flags().GetFloat64("speed"); err == nil && speed <= 0 {
		return usageError{fmt.Errorf("--speed must be above 0")}
	}
	return nil
}
