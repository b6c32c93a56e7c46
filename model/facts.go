package model

import (
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// The facts of the frame's own table a verdict prints, each built here
// once with where it was read and what it is about, so that two verdicts
// that print the count print the same count from the same source.

// ThisTable is the scope of a fact about the table the chart draws.
const ThisTable = "this table"

// FactCount is nf_conntrack_count.
func FactCount(c Conntrack) verdict.Fact {
	return verdict.N("count", c.Count, verdict.Entries).From("nf_conntrack_count", ThisTable)
}

// FactMax is nf_conntrack_max.
func FactMax(c Conntrack) verdict.Fact {
	return verdict.N("max", c.Max, verdict.Entries).From("nf_conntrack_max", ThisTable)
}

// FactBuckets is nf_conntrack_buckets.
func FactBuckets(c Conntrack) verdict.Fact {
	return verdict.N("buckets", c.Buckets, verdict.Number).From("nf_conntrack_buckets", ThisTable)
}

// FactFull is how full the table is: of is the count's fact (the count
// read, or the interval's peak) over max.
func FactFull(of verdict.Fact, max uint64) verdict.Fact {
	return verdict.N("full", arith.Percent(uint64(of.Value), max), verdict.Percent).From(of.Name+" ÷ nf_conntrack_max", of.Scope)
}

// CounterUnits are what each counter counts: an early drop is an entry
// evicted, the others packets.
var CounterUnits = map[Counter]verdict.Unit{EarlyDrop: verdict.Entries, InsertFailed: verdict.Packets, Invalid: verdict.Packets,
	ChainTooLong: verdict.Packets, ClashResolve: verdict.Packets, Drop: verdict.Packets}

// FactCensus is the census's walk of the table.
func FactCensus(cs *Census) verdict.Fact {
	return verdict.N("census", cs.Total, verdict.Entries).From("a dump of the table, as conntrack -L lists it", ThisTable+", the census's walk")
}

// countList is a list of counted keys as a template and its facts: "{name
// 0} ({name 0 n}), {name 1} ({name 1 n})", each key sanitised to width.
func countList(name string, cs []tally.Count, width int, source, scope string) (string, []verdict.Fact) {
	var parts []string
	var facts []verdict.Fact
	for i, c := range cs {
		k := name + " " + strconv.Itoa(i)
		parts = append(parts, "{"+k+"} ({"+k+" n})")
		facts = append(facts, verdict.W(k, safe.Text(c.Key, width)), verdict.N(k+" n", max(0, c.N), verdict.Entries).From(source, scope))
	}
	return strings.Join(parts, ", "), facts
}
