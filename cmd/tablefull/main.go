// Command tablefull is a terminal console for Linux network-table
// incidents: conntrack pressure, per-CPU drops, CPU and disk, TCP signals,
// the kernel log and a verdict, live.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tablefull/tablefull/sources"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `tablefull: why are connections stalling? A live console for conntrack incidents.

Usage:
  tablefull [flags]              open the live console on this host
  tablefull snapshot [--json]    print one sample and exit

Flags:
`

// options are the flags every subcommand shares.
type options struct {
	interval time.Duration
	roots    sources.Roots
	version  bool
}

func (o *options) register(fs *flag.FlagSet) {
	d := sources.DefaultRoots()
	fs.DurationVar(&o.interval, "interval", time.Second, "display and sampling `interval`")
	fs.StringVar(&o.roots.Proc, "procfs", d.Proc, "procfs mount `path`")
	fs.StringVar(&o.roots.Sys, "sysfs", d.Sys, "sysfs mount `path`")
	fs.StringVar(&o.roots.Dev, "devfs", d.Dev, "devfs `path` (for kmsg)")
	o.roots.Run = d.Run
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit code: 0 success, 1
// failure, 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := "console"
	if len(args) > 0 && (args[0] == "snapshot") {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("tablefull "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	o.register(fs)
	asJSON := false
	if cmd == "snapshot" {
		fs.BoolVar(&asJSON, "json", false, "print JSON (schema in README)")
	}
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tablefull: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, "tablefull", version)
		return 0
	}
	if o.interval < 100*time.Millisecond {
		fmt.Fprintln(stderr, "tablefull: --interval must be at least 100ms")
		return 2
	}
	var err error
	switch cmd {
	case "snapshot":
		err = snapshot(o, asJSON, stdout)
	default:
		err = console(o)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tablefull:", err)
		return 1
	}
	return 0
}
