package tune

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// The files that make a persisted value apply at boot, beside the
// sysctl.d and modprobe.d ones.
const (
	// UdevFile applies the net.netfilter sysctls whenever the module
	// nf_conntrack loads: at boot it is often autoloaded by the first ct
	// rule or NAT (dockerd, kube-proxy, a late nftables), after
	// systemd-sysctl ran, which then skipped its lines.
	UdevFile = "99-tablefull-conntrack.rules"
	// TmpfilesFile writes a built-in nf_conntrack's hashsize at boot:
	// modprobe.d is never read for a built-in module.
	TmpfilesFile = "tablefull.conf"
)

// PersisterAt persists under roots.Etc for the kernel under roots.Sys:
// sysctl.d, modprobe.d, sysctl.conf, udev/rules.d and tmpfiles.d.
func PersisterAt(roots kernelfs.Roots) Persister {
	etc := roots.Etc
	return Persister{SysctlDir: filepath.Join(etc, "sysctl.d"), ModprobeDir: filepath.Join(etc, "modprobe.d"),
		SysctlConf: filepath.Join(etc, "sysctl.conf"), UdevDir: filepath.Join(etc, "udev", "rules.d"),
		TmpfilesDir: filepath.Join(etc, "tmpfiles.d"), Build: counters.ReadConntrackBuild(roots.Sys)}
}

// hashsizeSysfs is where the hashsize of a loaded or built-in
// nf_conntrack is written.
const hashsizeSysfs = "/sys/module/nf_conntrack/parameters/hashsize"

// systemdSysctl is the systemd-sysctl the udev rule runs: /usr/lib's, or
// /lib's on a root whose /usr is not merged.
func systemdSysctl() string {
	for _, p := range []string{"/usr/lib/systemd/systemd-sysctl", "/lib/systemd/systemd-sysctl"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/usr/lib/systemd/systemd-sysctl"
}

// udevRule is the rule sysctl.d(5) gives for sysctls that appear with a
// module: systemd-sysctl again, for the module's own prefix, when it
// loads — every sysctl.d file's lines for it, in their order, so a later
// file still wins as it does at boot.
func udevRule() string {
	return `ACTION=="add", SUBSYSTEM=="module", KERNEL=="nf_conntrack", RUN+="` + systemdSysctl() + ` --prefix=/net/netfilter"`
}

// isUdevRule reports whether a line is the rule tablefull owns.
func isUdevRule(line string) bool {
	return strings.Contains(line, `KERNEL=="nf_conntrack"`) && strings.Contains(line, "systemd-sysctl")
}

// tmpfilesLine writes hashsize v to the sysfs file at boot
// (tmpfiles.d(5) "w": write the argument to an existing file).
func tmpfilesLine(v string) string { return "w " + hashsizeSysfs + " - - - - " + v }

// tmpfilesHashsize reads the hashsize of a tmpfiles.d line tablefull owns.
func tmpfilesHashsize(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) == 7 && (f[0] == "w" || f[0] == "w+") && f[1] == hashsizeSysfs {
		return f[6], true
	}
	return "", false
}

// setOwnedLine replaces the lines ours reports as tablefull's with line
// (once), keeps every other line, and appends it when there was none.
func setOwnedLine(old []byte, ours func(string) bool, line string) []byte {
	var b bytes.Buffer
	if len(old) == 0 {
		b.WriteString(fileHeader)
	}
	done := false
	for _, l := range lines(old) {
		if ours(l) {
			if !done {
				b.WriteString(line + "\n")
				done = true
			}
			continue
		}
		b.WriteString(l + "\n")
	}
	if !done {
		b.WriteString(line + "\n")
	}
	return b.Bytes()
}

// bootPlan adds to a plan the files that make it apply at boot on p's
// kind of kernel: the udev rule for a module's sysctls; the hashsize in
// modprobe.d for a module, in tmpfiles.d for a built-in one.
func (p Persister) bootPlan(sysctls bool, hashsize string) ([]FileChange, error) {
	var out []FileChange
	add := func(dir, name string, content func([]byte) []byte) error {
		fc, err := readChange(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fc.New = content(fc.Old)
		out = append(out, fc)
		return nil
	}
	if sysctls && p.Build.IsModule() && p.UdevDir != "" {
		if err := add(p.UdevDir, UdevFile, func(old []byte) []byte { return setOwnedLine(old, isUdevRule, udevRule()) }); err != nil {
			return nil, err
		}
	}
	switch {
	case hashsize == "":
	case p.Build.IsModule():
		if err := add(p.ModprobeDir, ModprobeFile, func(old []byte) []byte { return setHashsize(old, hashsize) }); err != nil {
			return nil, err
		}
	case p.TmpfilesDir == "":
		return nil, fmt.Errorf("persist hashsize: nf_conntrack is built in and no tmpfiles.d directory is set")
	default:
		ours := func(l string) bool { _, ok := tmpfilesHashsize(l); return ok }
		if err := add(p.TmpfilesDir, TmpfilesFile, func(old []byte) []byte { return setOwnedLine(old, ours, tmpfilesLine(hashsize)) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BootNote says how the persisted values apply at boot on this kernel.
func (p Persister) BootNote() string {
	switch p.Build {
	case knob.BuildBuiltin:
		return "nf_conntrack is built in: its sysctls apply at boot from sysctl.d; its hashsize is written at boot by systemd-tmpfiles (modprobe.d is never read for it)"
	case knob.BuildModule, knob.BuildNotLoaded:
		return "nf_conntrack is a " + string(p.Build) + ": a udev rule applies its sysctls whenever it loads (often after systemd-sysctl ran at boot); its hashsize is a modprobe.d option"
	}
	return "nf_conntrack's build is unknown: persisted as for a module (a udev rule for its sysctls, modprobe.d for its hashsize)"
}
