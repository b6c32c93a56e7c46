package cli

import (
	"fmt"
	"io"
	"os"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/entries"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/labcmd"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/playback"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/remote/report"
	"github.com/tablefull/tablefull/tui"
)

// flagValues are every subcommand's own flags and positional argument.
type flagValues struct {
	asJSON, force bool
	duration      time.Duration
	speed         float64
	picture       tui.PictureRequest
	dests         agent.Dests
	tu            tunecmd.CommandOptions
	lo            labcmd.Command
	ex            exporter.Config
	fleet         promread.Config
	report        report.Request
	entries       entries.Options
	compare       report.CompareRequest
	arg           string
	args          []string // a variadic subcommand's positional arguments
}

// subcommand is one entry of the command line: its name (console for
// none), its flags, what its positional argument is, and what it runs.
type subcommand struct {
	name string
	// usage is its lines in --help.
	usage string
	// positional names the one argument it takes ("" for none), kept in
	// flagValues.arg.
	positional string
	// optional reports whether the flags given let the positional
	// argument be left out (nil: never; lab's says which scenarios
	// there are itself).
	optional func(v *flagValues) bool
	flags    func(fs *flag.FlagSet, v *flagValues)
	run      func(o options, v *flagValues, stdout, stderr io.Writer) error
	// hostless: it reads no host, so the flags of every subcommand do
	// nothing for it, and its help leaves them out.
	hostless bool
	// variadic: any number of positional arguments, in flagValues.args.
	variadic bool
}

// subcommands is the command line, one entry a subcommand.
var subcommands = []subcommand{
	{name: "console", usage: `  tablefull [flags]                        the live console on this host
  tablefull --ssh [user@]host[:port] ...   the console on remote hosts (a tab each; --deploy copies tablefull there)
  tablefull --via "COMMAND" ...            the console on any command printing an agent stream
  tablefull --netns NAME|PATH              the console on another network namespace here
  tablefull --prometheus URL [--selector S] [--since D]
                                           the fleet in Prometheus: its totals, then its worst hosts
`, flags: consoleFlags, run: func(o options, v *flagValues, _, _ io.Writer) error {
		if v.fleet.URL != "" {
			return fleet(o, v.fleet)
		}
		return console(o, v.dests)
	}},
	{name: "snapshot", usage: "  tablefull snapshot [--json]              print one sample and exit\n", flags: jsonFlag, run: func(o options, v *flagValues, stdout, _ io.Writer) error { return snapshot(o, v.asJSON, stdout) }},
	{name: "census", usage: "  tablefull census [--json]                what fills the table: protocols, TCP states, top ports, addresses, owners (root)\n", flags: jsonFlag, run: func(o options, v *flagValues, stdout, _ io.Writer) error { return census(o, v.asJSON, stdout) }},
	{name: "entries", usage: "  tablefull entries [-p P] [--src A] [--dport N] [--state S] ... [--sort C] [--json] [--delete --yes]\n                                           the table's entries conntrack(8)'s filter matches, sorted; deleted after a preview (root)\n",
		flags: func(fs *flag.FlagSet, v *flagValues) { v.entries.AddFlags(fs) }, positional: "NAT-ADDRESS", optional: func(*flagValues) bool { return true }, run: func(o options, v *flagValues, stdout, _ io.Writer) error {
			return entries.Run(v.entries, v.arg, o.stateDir, stdout) // v.arg: conntrack(8)'s "-n 10.0.0.1"
		}},
	{name: "agent", usage: "  tablefull agent                          write this host's stream to stdout (for --ssh/--via)\n", run: func(o options, _ *flagValues, stdout, stderr io.Writer) error {
		return runAgent(o, os.Stdin, stdout, stderr)
	}},
	{name: "exporter", usage: "  tablefull exporter [--web.listen-address ADDR] [--web.config.file FILE] [--netns NAME|PATH]\n                                           serve this host's table to Prometheus on /metrics (default " + exporter.DefaultListen + ")\n", flags: func(fs *flag.FlagSet, v *flagValues) { v.ex.AddFlags(fs) },
		run: func(o options, v *flagValues, _, stderr io.Writer) error { return exportMetrics(o, v.ex, stderr) }},
	{name: "tune", usage: `  tablefull tune [--set K=V] [--yes] [--persist] [--dry-run] [--undo] [--until-free] [--netns NAME|PATH]
                                           propose, preview, apply, persist or undo tuning;
                                           --until-free repeats it until the table is free
`, flags: func(fs *flag.FlagSet, v *flagValues) { v.tu.AddFlags(fs) }, run: func(o options, v *flagValues, stdout, _ io.Writer) error { return tuneCommand(o, v.tu, stdout) }},
	{name: "lab", usage: `  tablefull lab SCENARIO [--headless]      reproduce an incident in a throw-away namespace (root):
                                           table-full, listen-overflow, cpu-bound, healthy, no-evict,
                                           hash-chains, nat-ports, stale-timeouts, gc-behind, gc-pinned,
                                           clash, stale-dnat
`, flags: func(fs *flag.FlagSet, v *flagValues) { v.lo.AddFlags(fs) }, positional: "SCENARIO", optional: func(*flagValues) bool { return true },
		run: func(o options, v *flagValues, stdout, _ io.Writer) error { return runLab(o, v.arg, v.lo, stdout) }},
	{name: "record", usage: "  tablefull record FILE [--duration D] [--force]\n                                           record this host's stream to FILE (refuses to overwrite without --force)\n", positional: "FILE", flags: func(fs *flag.FlagSet, v *flagValues) {
		fs.DurationVar(&v.duration, "duration", 0, "stop after `D` (default: at ctrl-c)")
		fs.BoolVar(&v.force, "force", false, "overwrite FILE if it exists")
	}, run: func(o options, v *flagValues, _, _ io.Writer) error { return record(o, v.arg, v.duration, v.force) }},
	{name: "replay", usage: "  tablefull replay FILE [--speed N] [--svg OUT]\n                                           play a recording in the console, or draw it to an SVG\n", positional: "FILE", flags: speedFlag,
		run: func(_ options, v *flagValues, stdout, _ io.Writer) error {
			longRunning()
			return playback.Replay(v.arg, v.speed, v.picture, stdout)
		}},
	{name: "report", usage: `  tablefull report FILE|--demo [-o|--output DIR] [--from T] [--to T] [--title S] [--force]
                                           the post-mortem of a recording: DIR/report.html, report.md and its charts
`, positional: "FILE", optional: func(v *flagValues) bool { return v.report.Demo },
		flags: func(fs *flag.FlagSet, v *flagValues) { v.report.AddFlags(fs) }, hostless: true, run: func(_ options, v *flagValues, stdout, _ io.Writer) error {
			return playback.Report(v.report, v.arg, stdout)
		}},
	{name: "compare", usage: `  tablefull compare A B [--passes N] [--json|--markdown] [--svg OUT]
                                           before and after a change: what each figure moved, and whether beyond
                                           the spread between passes (A, B: recordings, or FILE@FROM..TO)
`, variadic: true, hostless: true, flags: func(fs *flag.FlagSet, v *flagValues) { v.compare.AddFlags(fs) },
		run: func(_ options, v *flagValues, stdout, _ io.Writer) error {
			return playback.Compare(v.compare, v.args, stdout)
		}},
	{name: "demo", usage: "  tablefull demo [--speed N] [--svg OUT]   play the embedded table-full incident, or draw it to an SVG\n", flags: speedFlag, hostless: true, run: func(_ options, v *flagValues, stdout, _ io.Writer) error {
		longRunning()
		return playback.Demo(v.speed, v.picture, stdout)
	}},
	{name: "alive", usage: "  tablefull alive FILE [--within D]        exit 0 if an exporter's --heartbeat FILE changed within D: a liveness probe that opens no connection\n",
		positional: "FILE", hostless: true, flags: func(fs *flag.FlagSet, v *flagValues) {
			fs.DurationVar(&v.duration, "within", 30*time.Second, "FILE must have changed within `D`")
		}, run: func(_ options, v *flagValues, stdout, _ io.Writer) error {
			return exporter.Alive(v.arg, v.duration, stdout)
		}},
	{name: "version", usage: "  tablefull version                        print the version, revision, build date, Go version and platform\n",
		hostless: true, run: func(_ options, _ *flagValues, stdout, _ io.Writer) error {
			_, err := fmt.Fprintln(stdout, exporter.VersionText())
			return err
		}},
	{name: "man", usage: "  tablefull man                            print this manual page, tablefull(1), in roff\n",
		hostless: true, run: func(_ options, _ *flagValues, stdout, _ io.Writer) error {
			_, err := io.WriteString(stdout, manPage)
			return err
		}},
}

func jsonFlag(fs *flag.FlagSet, v *flagValues) {
	fs.BoolVar(&v.asJSON, "json", false, "print JSON (schema in docs/commands.md)")
}

func speedFlag(fs *flag.FlagSet, v *flagValues) {
	fs.Float64Var(&v.speed, "speed", 1, "playback speed `N` (2 = twice as fast)")
	v.picture.AddFlags(fs)
}

func consoleFlags(fs *flag.FlagSet, v *flagValues) {
	v.dests.AddFlags(fs)
	v.fleet.AddFlags(fs)
}
