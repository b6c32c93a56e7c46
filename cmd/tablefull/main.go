// Command tablefull is a terminal console for Linux network-table
// incidents: conntrack pressure, per-CPU drops, CPU and disk, TCP signals,
// the kernel log and a verdict, live, remote, recorded or replayed.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/lab"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `tablefull: why are connections stalling? A live console for conntrack incidents.

Usage:
  tablefull [flags]                        the live console on this host
  tablefull --ssh [user@]host[:port] ...   the console on remote hosts (a tab each; --deploy copies tablefull there)
  tablefull --via "COMMAND" ...            the console on any command printing an agent stream
  tablefull --netns NAME|PATH              the console on another network namespace here
  tablefull --prometheus URL [--selector S] [--since D]
                                           the fleet in Prometheus: every exporter's host at a glance
  tablefull snapshot [--json]              print one sample and exit
  tablefull census [--json]                what fills the table: protocols, TCP states, top ports and addresses (root)
  tablefull tune [--set K=V] [--yes] [--persist] [--dry-run] [--undo]
                                           propose, preview, apply, persist or undo tuning
  tablefull lab SCENARIO [--headless]      reproduce an incident in a throw-away namespace (root):
                                           table-full, listen-overflow, cpu-bound, healthy
  tablefull agent                          write this host's stream to stdout (for --ssh/--via)
  tablefull exporter [--listen ADDR]       serve this host's table to Prometheus on /metrics (default ` + "127.0.0.1:9874" + `)
  tablefull record FILE [--duration D]     record this host's stream to FILE
  tablefull replay FILE [--speed N]        play a recording in the console
  tablefull demo                           play the embedded table-full incident

Flags:
`

// options are the flags every subcommand shares.
type options struct {
	interval time.Duration
	roots    sources.Roots
	version  bool
	stateDir string
}

func (o *options) register(fs *flag.FlagSet) {
	d := sources.DefaultRoots()
	fs.DurationVar(&o.interval, "interval", time.Second, "display and sampling `interval`")
	fs.StringVar(&o.roots.Proc, "procfs", d.Proc, "procfs mount `path`")
	fs.StringVar(&o.roots.Sys, "sysfs", d.Sys, "sysfs mount `path`")
	fs.StringVar(&o.roots.Dev, "devfs", d.Dev, "devfs `path` (for kmsg)")
	o.roots.Run = d.Run
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.stateDir, "state-dir", "/var/lib/tablefull", "where tuning keeps its undo record")
}

var subcommands = map[string]bool{"exporter": true, "snapshot": true, "agent": true, "record": true, "replay": true, "demo": true, "census": true, "tune": true, "lab": true}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a subcommand and returns the exit code: 0 success, 1
// failure, 2 bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	honourNoColor()
	cmd := "console"
	if len(args) > 0 && subcommands[args[0]] {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("tablefull "+cmd, flag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(stderr)
	var o options
	o.register(fs)
	var (
		asJSON, force   bool
		deploy          bool
		duration        time.Duration
		speed           float64
		ssh, via, netns []string
		tu              tuneOptions
		lo              labOptions
		listen, oneNS   string
		fo              fleetOptions
	)
	switch cmd {
	case "snapshot", "census":
		fs.BoolVar(&asJSON, "json", false, "print JSON (schema in README)")
	case "record":
		fs.DurationVar(&duration, "duration", 0, "stop after `D` (default: at ctrl-c)")
		fs.BoolVar(&force, "force", false, "overwrite FILE if it exists")
	case "replay", "demo":
		fs.Float64Var(&speed, "speed", 1, "playback speed `N` (2 = twice as fast)")
	case "tune":
		fs.StringArrayVar(&tu.set, "set", nil, "set `KEY=VALUE` instead of the proposal (repeatable)")
		fs.BoolVar(&tu.persist, "persist", false, "also write /etc/sysctl.d and /etc/modprobe.d so it survives a reboot")
		fs.BoolVar(&tu.yes, "yes", false, "apply: without it nothing is written")
		fs.BoolVar(&tu.dryRun, "dry-run", false, "show the live changes and the exact file diffs, write nothing")
		fs.BoolVar(&tu.undo, "undo", false, "restore the live values and files of the last apply")
		fs.BoolVar(&tu.force, "force", false, "allow a table over 25 % of RAM")
		fs.BoolVar(&tu.asJSON, "json", false, "print JSON")
		fs.DurationVar(&tu.observe, "observe", 5*time.Second, "measure the host this long before proposing")
		fs.StringVar(&tu.sysctlDir, "sysctl-dir", "/etc/sysctl.d", "sysctl drop-in `dir`")
		fs.StringVar(&tu.modprobeDir, "modprobe-dir", "/etc/modprobe.d", "modprobe drop-in `dir`")
		fs.StringVar(&tu.sysctlConf, "sysctl-conf", "/etc/sysctl.conf", "`file` read after the drop-ins")
	case "lab":
		fs.DurationVar(&lo.duration, "duration", 0, "end the lab after `D` (default: when you quit)")
		fs.IntVar(&lo.Workers, "workers", 0, "client workers (default: the scenario's)")
		fs.Float64Var(&lo.Rate, "rate", 0, "requests per second over all workers (default: the scenario's)")
		fs.BoolVar(&lo.headless, "headless", false, "print one line per sample instead of the console")
		fs.StringVar(&lo.recordTo, "record", "", "record the lab's stream to `FILE` (e.g. to re-record the demo)")
		fs.DurationVar(&lo.fixAfter, "fix-after", 0, "raise nf_conntrack_max to 16384 after `D` (for recordings)")
	case "exporter":
		fs.StringVar(&listen, "listen", exporter.DefaultListen, "serve /metrics on `ADDR` (another address than loopback is your choice to make)")
		fs.StringVar(&oneNS, "netns", "", "export network namespace `NAME|PATH` instead of this one (through its agent)")
	case "console":
		fs.StringArrayVar(&ssh, "ssh", nil, "watch `[user@]host[:port]` over the system ssh (repeatable)")
		fs.StringArrayVar(&via, "via", nil, "watch the agent stream printed by `COMMAND` (repeatable)")
		fs.StringArrayVar(&netns, "netns", nil, "watch network namespace `NAME|PATH` on this host (repeatable)")
		fs.BoolVar(&deploy, "deploy", false, "copy this binary to --ssh hosts that lack tablefull (checksum verified)")
		fs.StringVar(&fo.url, "prometheus", "", "watch the fleet in the Prometheus at `URL` (its tablefull exporters)")
		fs.StringVar(&fo.selector, "selector", "", "with --prometheus: label `MATCHERS` that pick the instances, e.g. job=\"tablefull\"")
		fs.DurationVar(&fo.since, "since", time.Hour, "with --prometheus: the window of peaks, pinned time and drill-downs")
		fs.StringVar(&fo.user, "prometheus-user", "", "basic auth `USER` (password from $"+envPassword+"; a token from $"+envToken+")")
		fs.StringVar(&fo.caFile, "prometheus-ca", "", "CA `FILE` of an https Prometheus")
	}
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	// Flags may come before or after the positional argument (GNU style).
	if err := fs.Parse(args); err != nil {
		return usageExit(err, stderr)
	}
	pos := fs.Args()
	var file string
	switch cmd {
	case "lab":
		if len(pos) < 1 {
			fmt.Fprintf(stderr, "tablefull lab: which scenario? %s\n", strings.Join(lab.Names(), ", "))
			return 2
		}
		lo.scenario, pos = pos[0], pos[1:]
	case "record", "replay":
		if len(pos) < 1 {
			fmt.Fprintf(stderr, "tablefull %s: missing FILE\n", cmd)
			return 2
		}
		file, pos = pos[0], pos[1:]
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "tablefull: unexpected argument %q\n", pos[0])
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
	if speed <= 0 && (cmd == "replay" || cmd == "demo") {
		fmt.Fprintln(stderr, "tablefull: --speed must be above 0")
		return 2
	}
	var err error
	switch cmd {
	case "snapshot":
		err = snapshot(o, asJSON, stdout)
	case "agent":
		err = agent(o, os.Stdin, stdout, stderr)
	case "exporter":
		err = exportMetrics(o, listen, oneNS)
	case "census":
		err = census(asJSON, stdout)
	case "lab":
		err = runLab(o, lo, stdout)
	case "tune":
		tu.stateDir = o.stateDir
		err = tune(o, tu, stdout)
	case "record":
		err = record(o, file, duration, force)
	case "replay":
		err = replay(file, speed)
	case "demo":
		err = demo(speed)
	default:
		if fo.url != "" {
			err = fleet(o, fo)
			break
		}
		err = console(o, ssh, via, netns, deploy)
	}
	if err != nil {
		fmt.Fprintln(stderr, "tablefull:", err)
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

func usageExit(err error, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "tablefull:", err, "(tablefull --help lists the flags)")
	return 2
}
