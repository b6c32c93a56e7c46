package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// intervalOf is the scope of a fact read over the frame's interval.
func intervalOf(in Inputs) string {
	return model.ThisTable + ", the interval of " + units.Dur(in.Sample.Interval)
}

// hostInterval is the scope of a fact of the whole host read over the
// frame's interval: its CPUs, its disks, its TCP counters.
func hostInterval(in Inputs) string {
	return "the host, the interval of " + units.Dur(in.Sample.Interval)
}

// factPeak is the interval's highest count read.
func factPeak(in Inputs) verdict.Fact {
	return verdict.N("peak", in.Sample.Conntrack.Peak, verdict.Entries).From("the interval's highest nf_conntrack_count read", intervalOf(in))
}

// factDrops is the interval's packets dropped.
func factDrops(in Inputs) verdict.Fact {
	return verdict.N("drops", in.Rates.Drops(), verdict.Packets).From("conntrack -S drop, summed over CPUs", intervalOf(in))
}

// factCounter is one of conntrack -S's counters over the interval.
func factCounter(in Inputs, k model.Counter) verdict.Fact {
	return verdict.N(string(k), in.Rates.CTTotal.Get(k), model.CounterUnits[k]).From("conntrack -S "+string(k)+", summed over CPUs", intervalOf(in))
}

// factCPU is the CPUs' busy share over the interval.
func factCPU(in Inputs) verdict.Fact {
	return verdict.N("CPU busy", in.Rates.CPUAll.Busy(), verdict.Percent).From("/proc/stat, all CPUs", hostInterval(in))
}
