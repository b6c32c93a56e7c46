// Package cli is tablefull's command line: its subcommands, flags and
// wiring. Its own home, not package main's, so that every test binary of
// the command's end-to-end tests (the rooms) can be the command too
// (clitest.Main), as a deployed agent is.
package cli

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

// Run runs the command line and returns the exit code: 0 success, 1
// failure, 2 bad usage, and a subcommand's own (tune's 3–6).
func Run(args []string, stdout, stderr io.Writer) int {
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
