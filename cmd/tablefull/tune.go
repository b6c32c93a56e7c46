package main

import (
	"io"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

func tuneFlags(fs *flag.FlagSet, v *flagValues) {
	tu := &v.tu
	fs.StringArrayVar(&tu.Set, "set", nil, "set `KEY=VALUE` instead of the proposal (repeatable)")
	fs.BoolVar(&tu.Persist, "persist", false, "also write the files that apply it at boot (sysctl.d; a udev rule or tmpfiles.d, modprobe.d) so it survives a reboot")
	fs.BoolVar(&tu.Yes, "yes", false, "apply: without it nothing is written")
	fs.BoolVar(&tu.DryRun, "dry-run", false, "show the live changes and the exact file diffs, write nothing")
	fs.BoolVar(&tu.Undo, "undo", false, "restore the live values and files of the last apply")
	fs.BoolVar(&tu.Force, "force", false, "allow a table over 25 % of RAM")
	fs.BoolVar(&tu.JSON, "json", false, "print JSON")
	fs.DurationVar(&tu.Observe, "observe", 5*time.Second, "measure the host this long before proposing")
	fs.StringVar(&tu.SysctlDir, "sysctl-dir", "", "sysctl drop-in `dir` (default --etc's sysctl.d)")
	fs.StringVar(&tu.ModprobeDir, "modprobe-dir", "", "modprobe drop-in `dir` (default --etc's modprobe.d)")
	fs.StringVar(&tu.SysctlConf, "sysctl-conf", "", "`file` read after the drop-ins (default --etc's sysctl.conf)")
	fs.BoolVar(&tu.UntilFree, "until-free", false, "apply (with --yes), watch, and again while still pinned: the guided loop")
	fs.IntVar(&tu.Steps, "steps", 3, "--until-free: at most `N` steps")
	fs.DurationVar(&tu.Watch, "watch", 30*time.Second, "--until-free: watch each step up to `D` (at least 12s)")
	fs.StringVar(&v.tuneNetns, "netns", "", "tune network namespace `NAME|PATH` from the host: global knobs here, its own inside, measured through its agent")
}

// tuneCommand is tablefull tune, with --netns wired to the namespace's
// agent.
func tuneCommand(o options, v *flagValues, stdout io.Writer) error {
	v.tu.StateDir = o.stateDir
	if v.tuneNetns != "" {
		path, err := remote.NetnsPath(v.tuneNetns)
		if err != nil {
			return usageError{err}
		}
		v.tu.NetnsPath = path
		v.tu.Feed = func() (model.Feed, error) {
			p, err := remote.NetnsAgent(v.tuneNetns)
			if err != nil {
				return nil, err
			}
			p.MinBackoff = 200 * time.Millisecond
			p.Start(time.Second)
			return p, nil
		}
	} else {
		v.tu.Feed = localFeed(o.roots)
	}
	return tune.Command(o.roots, v.tu, stdout)
}

// localFeed is what tune measures on this host: its collector at 1 s.
func localFeed(roots kernelfs.Roots) func() (model.Feed, error) {
	return func() (model.Feed, error) { return sources.StartLive(roots, time.Second) }
}
