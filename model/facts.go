package model

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/units"
)

// Fact is one number a verdict's evidence prints, with where it was read
// (Source: the kernel's file, counter or dump) and what it is about
// (Scope: which table, over which span). A surface that shows the number
// can say where it came from; two surfaces that print it print the same.
type Fact struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Unit is what Value counts: "entries", "packets", "entries/s".
	Unit   string `json:"unit"`
	Source string `json:"source"`
	Scope  string `json:"scope"`
}

// String is "count 4,096 (nf_conntrack_count; this table)".
func (f Fact) String() string {
	return fmt.Sprintf("%s %s (%s; %s)", f.Name, factValue(f.Value), f.Source, f.Scope)
}

// factValue prints v as the evidence does: a whole number with commas,
// else one decimal.
func factValue(v float64) string {
	if v == float64(uint64(v)) {
		return units.Int(uint64(v))
	}
	return units.Num(v)
}

// factsOf are the numbers the frame's inputs read that a verdict may
// print, each with its source and scope: the table's count, peak, cap
// and buckets; the interval's and the episode's drops and the per-CPU
// counters a rule reads; the new entries; the census's walk.
func factsOf(in Inputs) []Fact {
	c := in.Sample.Conntrack
	table := "this table"
	interval := "the interval of " + units.Dur(in.Sample.Interval)
	var out []Fact
	add := func(name string, v float64, unit, source, scope string) {
		if v > 0 {
			out = append(out, Fact{Name: name, Value: v, Unit: unit, Source: source, Scope: scope})
		}
	}
	add("count", float64(c.Count), "entries", "nf_conntrack_count", table)
	add("peak", float64(c.Peak), "entries", "the interval's highest nf_conntrack_count read", table+", "+interval)
	add("max", float64(c.Max), "entries", "nf_conntrack_max", table)
	add("buckets", float64(c.Buckets), "buckets", "nf_conntrack_buckets", table)
	add("drops", float64(in.Rates.Drops()), "packets", "conntrack -S drop, summed over CPUs", table+", "+interval)
	for _, k := range []Counter{EarlyDrop, InsertFailed, Invalid, ChainTooLong, ClashResolve} {
		add(string(k), float64(in.Rates.CTTotal.Get(k)), counterUnits[k], "conntrack -S "+string(k)+", summed over CPUs", table+", "+interval)
	}
	if ep := in.Episode; ep != nil {
		add("drops while pinned", float64(ep.Drops), "packets", "conntrack -S drop, summed over CPUs", table+", the pin since "+ep.Seen.Format("15:04:05"))
	}
	if r := in.Rates.Entries; r.Known() {
		source := "ctnetlink NEW events"
		if r.Basis == BasisTCPOpens {
			source = "TCP active and passive opens (/proc/net/snmp)"
		}
		add("new entries/s", r.Total, "entries/s", source, table+", "+interval)
	}
	if cs := in.Census; cs != nil && cs.Error == "" {
		add("census entries", float64(cs.Total), "entries", "a dump of the table, as conntrack -L lists it", table+", the census's walk")
	}
	return out
}

// counterUnits are what each counter counts: an early drop is an entry
// evicted, the others packets.
var counterUnits = map[Counter]string{EarlyDrop: "entries", InsertFailed: "packets", Invalid: "packets", ChainTooLong: "packets", ClashResolve: "packets"}

// evidenceNumbers are the numbers evidence prints, as printed.
var evidenceNumbers = regexp.MustCompile(`[0-9][0-9,]*(?:\.[0-9]+)?`)

// citedFacts are the facts whose value evidence prints.
func citedFacts(evidence string, facts []Fact) []Fact {
	printed := map[string]bool{}
	for _, n := range evidenceNumbers.FindAllString(evidence, -1) {
		printed[n] = true
	}
	var out []Fact
	for _, f := range facts {
		if printed[factValue(f.Value)] {
			out = append(out, f)
		}
	}
	return out
}

// printedPairs are the "N of M" the verdicts print of the table: "400 of
// 400 entries", "count 400 of max 400", "peak 399 of max 400".
var printedPairs = regexp.MustCompile(`(count |peak |^|[^0-9,.])([0-9][0-9,]*) of (?:max )?([0-9][0-9,]*)(?: entries|\b)`)

// FactFaults are the ways v's evidence disagrees with its own facts: a
// count, peak or cap it prints ("count N of max M", "N of M entries")
// that is not the number read. A verdict about another table
// (v.Table) prints that table's numbers and is not checked here.
func (v Verdict) FactFaults() []string {
	if v.Table != "" {
		return nil
	}
	known := map[string]float64{}
	for _, f := range v.Facts {
		if _, ok := known[f.Name]; !ok {
			known[f.Name] = f.Value
		}
	}
	var out []string
	for _, g := range printedPairs.FindAllStringSubmatch(v.Evidence, -1) {
		which := strings.TrimSpace(g[1])
		if which == "" && !strings.Contains(g[0], "entries") {
			continue // "3 of 8 CPUs": not the table
		}
		if which == "" {
			which = "count"
		}
		n, _ := strconv.ParseFloat(strings.ReplaceAll(g[2], ",", ""), 64)
		m, _ := strconv.ParseFloat(strings.ReplaceAll(g[3], ",", ""), 64)
		if want, ok := known[which]; ok && n != want {
			out = append(out, fmt.Sprintf("%s prints %s %s, and %s read %s", v.Kind, which, g[2], which, factValue(want)))
		}
		if want, ok := known["max"]; ok && m != want {
			out = append(out, fmt.Sprintf("%s prints max %s, and nf_conntrack_max read %s", v.Kind, g[3], factValue(want)))
		}
	}
	return out
}
