package model

import (
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// The facts of the frame's own table a verdict prints, each built here
// once with where it was read and what it is about, so that two verdicts
// that print the count print the same count from the same source.

// thisTable is the scope of a fact about the table the chart draws.
const thisTable = "this table"

// intervalOf is the scope of a fact read over the frame's interval.
func intervalOf(in Inputs) string {
	return thisTable + ", the interval of " + units.Dur(in.Sample.Interval)
}

// hostInterval is the scope of a fact of the whole host read over the
// frame's interval: its CPUs, its disks, its TCP counters.
func hostInterval(in Inputs) string {
	return "the host, the interval of " + units.Dur(in.Sample.Interval)
}

// factCount is nf_conntrack_count.
func factCount(c Conntrack) verdict.Fact {
	return verdict.N("count", c.Count, verdict.Entries).From("nf_conntrack_count", thisTable)
}

// factPeak is the interval's highest count read.
func factPeak(in Inputs) verdict.Fact {
	return verdict.N("peak", in.Sample.Conntrack.Peak, verdict.Entries).From("the interval's highest nf_conntrack_count read", intervalOf(in))
}

// factMax is nf_conntrack_max.
func factMax(c Conntrack) verdict.Fact {
	return verdict.N("max", c.Max, verdict.Entries).From("nf_conntrack_max", thisTable)
}

// factBuckets is nf_conntrack_buckets.
func factBuckets(c Conntrack) verdict.Fact {
	return verdict.N("buckets", c.Buckets, verdict.Number).From("nf_conntrack_buckets", thisTable)
}

// factFull is how full the table is: of is the count's fact (the count
// read, or the interval's peak) over max.
func factFull(of verdict.Fact, max uint64) verdict.Fact {
	return verdict.N("full", Percent(uint64(of.Value), max), verdict.Percent).From(of.Name+" ÷ nf_conntrack_max", of.Scope)
}

// factDrops is the interval's packets dropped.
func factDrops(in Inputs) verdict.Fact {
	return verdict.N("drops", in.Rates.Drops(), verdict.Packets).From("conntrack -S drop, summed over CPUs", intervalOf(in))
}

// factCounter is one of conntrack -S's counters over the interval.
func factCounter(in Inputs, k Counter) verdict.Fact {
	return verdict.N(string(k), in.Rates.CTTotal.Get(k), counterUnits[k]).From("conntrack -S "+string(k)+", summed over CPUs", intervalOf(in))
}

// counterUnits are what each counter counts: an early drop is an entry
// evicted, the others packets.
var counterUnits = map[Counter]verdict.Unit{EarlyDrop: verdict.Entries, InsertFailed: verdict.Packets, Invalid: verdict.Packets,
	ChainTooLong: verdict.Packets, ClashResolve: verdict.Packets, Drop: verdict.Packets}

// factCPU is the CPUs' busy share over the interval.
func factCPU(in Inputs) verdict.Fact {
	return verdict.N("CPU busy", in.Rates.CPUAll.Busy(), verdict.Percent).From("/proc/stat, all CPUs", hostInterval(in))
}

// factCensus is the census's walk of the table.
func factCensus(cs *Census) verdict.Fact {
	return verdict.N("census", cs.Total, verdict.Entries).From("a dump of the table, as conntrack -L lists it", thisTable+", the census's walk")
}

// countList is a list of counted keys as a template and its facts: "{name
// 0} ({name 0 n}), {name 1} ({name 1 n})", each key sanitised to width.
func countList(name string, cs []Count, width int, source, scope string) (string, []verdict.Fact) {
	var parts []string
	var facts []verdict.Fact
	for i, c := range cs {
		k := name + " " + strconv.Itoa(i)
		parts = append(parts, "{"+k+"} ({"+k+" n})")
		facts = append(facts, verdict.W(k, Sanitize(c.Key, width)), verdict.N(k+" n", max(0, c.N), verdict.Entries).From(source, scope))
	}
	return strings.Join(parts, ", "), facts
}
