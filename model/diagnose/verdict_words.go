package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// The clauses verdicts share for what they read beside the table.

// serverState describes CPU and disk the way an operator reads them next
// to drops: "server idle (CPU 4 %, disk 0 IO/s)". A part not read is said
// to be, and an idle server is claimed only when both were read.
func serverState(in Inputs) verdict.Clause {
	r := in.Rates
	var facts []verdict.Fact
	cpu, disk := "CPU not read", "disk not read"
	if r.Known(model.PartCPU) {
		cpu = "CPU {CPU busy}"
		facts = append(facts, factCPU(in))
	}
	if r.Known(model.PartDisks) {
		disk = "disk {disk IO/s} IO/s"
		facts = append(facts, verdict.N("disk IO/s", r.DiskIOPS(), verdict.PerSecond).From("/proc/diskstats", hostInterval(in)))
	}
	if r.Known(model.PartCPU) && r.Known(model.PartDisks) && r.CPUAll.Busy() < IdleCPUPct && r.MaxDiskUtil() < DiskBoundPct/2 {
		return verdict.Say(verdict.Numbers, "server.idle", "server idle ("+cpu+", "+disk+")", facts...)
	}
	return verdict.Say(verdict.Numbers, "server", cpu+", "+disk, facts...)
}

// cpuClause is "CPU 4 %", or "CPU not read".
func cpuClause(in Inputs) verdict.Clause {
	if !in.Rates.Known(model.PartCPU) {
		return verdict.Say(verdict.Numbers, "cpu.unread", "CPU not read")
	}
	return verdict.Say(verdict.Numbers, "cpu", "CPU {CPU busy}", factCPU(in))
}

// dropsClause is "no drops" only for an interval that dropped nothing.
func dropsClause(in Inputs) verdict.Clause {
	if in.Rates.Drops() > 0 {
		return verdict.Say(verdict.Numbers, "drops", "{drops} drops", factDrops(in))
	}
	return verdict.Say(verdict.Numbers, "drops.none", "no drops")
}
