package sources

import (
	"os"
	"path/filepath"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// MissingCapabilities says, for each part of a sample this process cannot
// read for want of a capability, which one and what is lost: what the
// exporter logs when it starts, so that an installation that grants too
// little says so rather than reading as a calm host. Empty when every
// part can be read.
func MissingCapabilities(roots kernelfs.Roots) []string {
	caps, err := kernelfs.EffectiveCaps(roots.Proc)
	if err != nil {
		return []string{"capabilities not readable (" + err.Error() + "): parts may be missing, tablefull_up{part} says which"}
	}
	has := func(c uint) bool { return caps&(1<<c) != 0 }
	var out []string
	if !has(kernelfs.CapSysPtrace) {
		out = append(out, `without CAP_SYS_PTRACE: other users' processes are not read, so neither the network namespaces only they are in nor the owners of the table's entries (tablefull_up{part="namespaces"} 0)`)
	}
	if !has(kernelfs.CapSysAdmin) {
		out = append(out, `without CAP_SYS_ADMIN: network namespaces no process is in (kept only by a bind mount) are not read, nor counted when they are there (tablefull_up{part="namespaces"} 0 then)`)
	}
	if !has(kernelfs.CapBPF) || !has(kernelfs.CapPerfmon) {
		if !has(kernelfs.CapSysAdmin) {
			out = append(out, "without CAP_BPF and CAP_PERFMON: the eBPF probes do not load, so new connections and refused packets are not counted by owner (the owners' per-second series are absent)")
		}
	}
	if !has(kernelfs.CapNetAdmin) {
		lost := "the table's new entries by class and its census over ctnetlink"
		if _, err := os.Stat(filepath.Join(roots.Proc, "net", "stat", "nf_conntrack")); err != nil {
			lost += `, and the per-CPU counters (tablefull_up{part="ctstats"} 0)`
		}
		out = append(out, "without CAP_NET_ADMIN: "+lost+" are not read")
	}
	if !has(kernelfs.CapSyslog) {
		if v, err := kernelfs.ReadSysctlUint(kernelfs.SysctlPath(roots.Proc, "kernel.dmesg_restrict")); err == nil && v == 1 {
			out = append(out, `without CAP_SYSLOG (kernel.dmesg_restrict=1): the kernel log's "table full" lines are not read (tablefull_up{part="kernel_log"} 0)`)
		}
	}
	return out
}
