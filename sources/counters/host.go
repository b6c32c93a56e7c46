package counters

import (
	"fmt"

	"github.com/prometheus/procfs"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// ReadHost describes the host from /proc: name, kernel, CPUs, memory.
// Fields it cannot read stay empty.
func ReadHost(procRoot string) (model.Host, error) {
	h := model.Host{Source: "local"}
	h.Name = readString(kernelfs.SysctlPath(procRoot, "kernel.hostname"))
	h.Kernel = readString(kernelfs.SysctlPath(procRoot, "kernel.osrelease"))
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return h, fmt.Errorf("open procfs %s: %w", procRoot, err)
	}
	if st, err := fs.Stat(); err == nil {
		h.CPUs = len(st.CPU)
	}
	mi, err := fs.Meminfo()
	if err != nil {
		return h, fmt.Errorf("read meminfo: %w", err)
	}
	if mi.MemTotal != nil {
		h.MemTotal = *mi.MemTotal * 1024
	}
	return h, nil
}

func readString(path string) string {
	v, _ := kernelfs.ReadSysctl(path)
	return v
}
