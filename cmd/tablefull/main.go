// Command tablefull is a terminal console for Linux network-table
// incidents: conntrack pressure, per-CPU drops, CPU and disk, TCP signals,
// the kernel log and a verdict, live, remote, recorded or replayed.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"

	// First of the program to initialize: see its doc.
	_ "github.com/tablefull/tablefull/cmd/tablefull/internal/growstack"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/tui"
)

// options are the flags every subcommand shares.
type options struct {
	interval    time.Duration
	intervalSet bool // --interval was given, not its default
	roots       kernelfs.Roots
	version     bool
	stateDir    string
}

func (o *options) register(fs *flag.FlagSet) {
	fs.DurationVar(&o.interval, "interval", time.Second, "display and sampling `interval` (at least 100ms)")
	o.roots.AddFlags(fs)
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.stateDir, "state-dir", "/var/lib/tablefull", "where tuning keeps its undo record, and entries its journal of deletions")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line and returns the exit code: 0 success, 1
// failure, 2 bad usage, and a subcommand's own (tune's 3–6).
func run(args []string, stdout, stderr io.Writer) int {
	tui.HonourNoColor()
	root := commandLine(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), err)
	code := 1
	var ec exitCoder
	if errors.As(err, &ec) {
		code = ec.ExitCode()
	}
	if code == 2 {
		fmt.Fprintf(stderr, "(see %s --help)\n", cmd.CommandPath())
	}
	return code
}

// exitCoder is an error that chooses the exit code (tune's, a usage error's).
type exitCoder interface{ ExitCode() int }

// usageError is bad usage: exit 2.
type usageError struct{ error }

// ExitCode implements exitCoder.
func (usageError) ExitCode() int { return 2 }

// untilStopped is done on SIGINT, SIGTERM or SIGHUP (the terminal closed),
// or after d when d > 0: how long record, the exporter and the headless
// lab run. Each ends cleanly on every one of them: no data lost, the host
// restored.
func untilStopped(d time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if d <= 0 {
		return ctx, stop
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, func() { cancel(); stop() }
}
