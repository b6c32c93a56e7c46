package main

import (
	"time"

	flag "github.com/spf13/pflag"
)

func tuneFlags(fs *flag.FlagSet, v *flagValues) {
	tu := &v.tu
	fs.StringArrayVar(&tu.Set, "set", nil, "set `KEY=VALUE` instead of the proposal (repeatable)")
	fs.BoolVar(&tu.Persist, "persist", false, "also write /etc/sysctl.d and /etc/modprobe.d so it survives a reboot")
	fs.BoolVar(&tu.Yes, "yes", false, "apply: without it nothing is written")
	fs.BoolVar(&tu.DryRun, "dry-run", false, "show the live changes and the exact file diffs, write nothing")
	fs.BoolVar(&tu.Undo, "undo", false, "restore the live values and files of the last apply")
	fs.BoolVar(&tu.Force, "force", false, "allow a table over 25 % of RAM")
	fs.BoolVar(&tu.JSON, "json", false, "print JSON")
	fs.DurationVar(&tu.Observe, "observe", 5*time.Second, "measure the host this long before proposing")
	fs.StringVar(&tu.SysctlDir, "sysctl-dir", "/etc/sysctl.d", "sysctl drop-in `dir`")
	fs.StringVar(&tu.ModprobeDir, "modprobe-dir", "/etc/modprobe.d", "modprobe drop-in `dir`")
	fs.StringVar(&tu.SysctlConf, "sysctl-conf", "/etc/sysctl.conf", "`file` read after the drop-ins")
}
