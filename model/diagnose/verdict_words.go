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
	key := "server"
	if r.Known(model.PartCPU) {
		facts = append(facts, factCPU(in))
	} else {
		key += ".no-cpu"
	}
	if r.Known(model.PartDisks) {
		facts = append(facts, verdict.N("disk IO/s", r.DiskIOPS(), verdict.PerSecond).From("/proc/diskstats", hostInterval(in)))
	} else {
		key += ".no-disk"
	}
	if key == "server" && r.CPUAll.Busy() < IdleCPUPct && r.MaxDiskUtil() < DiskBoundPct/2 {
		key = "server.idle"
	}
	return say(verdict.Numbers, key, facts...)
}

// cpuClause is "CPU 4 %", or "CPU not read".
func cpuClause(in Inputs) verdict.Clause {
	if !in.Rates.Known(model.PartCPU) {
		return say(verdict.Numbers, "cpu.unread")
	}
	return say(verdict.Numbers, "cpu", factCPU(in))
}

// dropsClause is "no drops" only for an interval that dropped nothing.
func dropsClause(in Inputs) verdict.Clause {
	if in.Rates.Drops() > 0 {
		return say(verdict.Numbers, "drops", factDrops(in))
	}
	return say(verdict.Numbers, "drops.none")
}
