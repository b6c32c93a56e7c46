package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// The words verdicts share for what they read beside the table.

// serverState describes CPU and disk the way an operator reads them next to
// drops: "server idle (CPU 4 %, disk 0 IO/s)". A part not read is said to
// be, and an idle server is claimed only when both were read.
func serverState(r Rates) string {
	cpu, disk := "CPU not read", "disk not read"
	if r.Known(PartCPU) {
		cpu = fmt.Sprintf("CPU %.0f %%", r.CPUAll.Busy())
	}
	if r.Known(PartDisks) {
		disk = fmt.Sprintf("disk %s IO/s", units.Num(r.DiskIOPS()))
	}
	s := cpu + ", " + disk
	if r.Known(PartCPU) && r.Known(PartDisks) && r.CPUAll.Busy() < IdleCPUPct && r.MaxDiskUtil() < DiskBoundPct/2 {
		return "server idle (" + s + ")"
	}
	return s
}

// cpuText is "CPU 4 %", or "CPU not read".
func cpuText(r Rates) string {
	if !r.Known(PartCPU) {
		return "CPU not read"
	}
	return fmt.Sprintf("CPU %.0f %%", r.CPUAll.Busy())
}

// dropsText is "no drops" only for an interval that dropped nothing.
func dropsText(r Rates) string {
	if n := r.Drops(); n > 0 {
		return units.Int(n) + " drops"
	}
	return "no drops"
}
