package tunecmd

import (
	"time"

	flag "github.com/spf13/pflag"
)

// AddFlags registers tablefull tune's flags on fs, each filling t.
func (t *CommandOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringArrayVar(&t.Set, "set", nil, "set `KEY=VALUE` instead of the proposal (repeatable)")
	fs.BoolVar(&t.Persist, "persist", false, "also write the files that apply it at boot (sysctl.d; a udev rule or tmpfiles.d, modprobe.d) so it survives a reboot")
	fs.BoolVar(&t.Yes, "yes", false, "apply: without it nothing is written")
	fs.BoolVar(&t.DryRun, "dry-run", false, "show the live changes and the exact file diffs, write nothing")
	fs.BoolVar(&t.Undo, "undo", false, "restore the live values and files of the last apply")
	fs.BoolVar(&t.Force, "force", false, "allow a table over 25 % of RAM")
	fs.BoolVar(&t.JSON, "json", false, "print JSON")
	fs.DurationVar(&t.Observe, "observe", 5*time.Second, "measure the host this long before proposing")
	fs.StringVar(&t.SysctlDir, "sysctl-dir", "", "sysctl drop-in `dir` (default --etc's sysctl.d)")
	fs.StringVar(&t.ModprobeDir, "modprobe-dir", "", "modprobe drop-in `dir` (default --etc's modprobe.d)")
	fs.StringVar(&t.SysctlConf, "sysctl-conf", "", "`file` read after the drop-ins (default --etc's sysctl.conf)")
	fs.BoolVar(&t.UntilFree, "until-free", false, "apply (with --yes), watch, and again while still pinned: the guided loop")
	fs.IntVar(&t.Steps, "steps", 3, "--until-free: at most `N` steps")
	fs.DurationVar(&t.Watch, "watch", 45*time.Second, "--until-free: watch each step up to `D` (at least 33s: the clients' SYN retry ladder)")
	fs.StringVar(&t.Netns, "netns", "", "tune network namespace `NAME|PATH` from the host: global knobs here, its own inside, measured through its agent")
}
