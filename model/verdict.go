package model

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/units"
)

// Severity orders verdicts.
type Severity int

// Severities, least severe first.
const (
	SevOK Severity = iota
	SevWarn
	SevCrit
)

// severityNames are the severities as JSON and the report say them.
var severityNames = [...]string{SevOK: "ok", SevWarn: "warning", SevCrit: "critical"}

// MarshalText writes the severity as its word: "critical".
func (s Severity) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(severityNames) {
		return nil, fmt.Errorf("severity %d: not one of tablefull's", int(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText reads the word MarshalText writes.
func (s *Severity) UnmarshalText(b []byte) error {
	for i, n := range severityNames {
		if n == string(b) {
			*s = Severity(i)
			return nil
		}
	}
	return fmt.Errorf("severity %q: not one of tablefull's", b)
}

// Kind names a verdict.
type Kind string

// The verdicts, each decided by one rule below.
const (
	OK                Kind = "OK"
	NearCap           Kind = "NEAR CAP"
	TableFull         Kind = "TABLE FULL"
	EarlyDropping     Kind = "EARLY DROP"
	HashChains        Kind = "HASH CHAINS"
	ListenOverflow    Kind = "LISTEN OVERFLOW"
	PortExhaustion    Kind = "PORT EXHAUSTION"
	NATPorts          Kind = "NAT PORTS"
	InsertClash       Kind = "INSERT CLASH"
	InvalidPackets    Kind = "INVALID"
	StaleTimeouts     Kind = "STALE TIMEOUTS"
	GCBehind          Kind = "GC BEHIND"
	DyingList         Kind = "EVENTS UNDELIVERED"
	StaleDNAT         Kind = "STALE DNAT"
	EntriesFlushed    Kind = "ENTRIES FLUSHED"
	CiliumCT          Kind = "CILIUM CT MAP"
	ZoneFull          Kind = "ZONE FULL"
	InstanceAllowance Kind = "INSTANCE ALLOWANCE"
	CPUBound          Kind = "SERVER CPU-BOUND"
	DiskBound         Kind = "DISK-BOUND"
	ClientStalled     Kind = "CLIENT STALLED ON NETWORK"
)

// Verdict is one conclusion with the evidence for it.
type Verdict struct {
	Kind     Kind     `json:"kind"`
	Severity Severity `json:"severity"`
	// Evidence is one sentence of numbers and meaning.
	Evidence string `json:"text"`
	// Table names the table the evidence's numbers are about when it is
	// not the one the chart draws ("netns NAME"); "" for that one. The
	// evidence names it too.
	Table string `json:"table,omitempty"`
	// RulesOut are the knobs the evidence says are not the fix ("not the
	// TIME_WAIT hold", ", not max"): no plan of the same moment proposes
	// them (tuning.Diagnosis.Contradictions).
	RulesOut []string `json:"rules_out,omitempty"`
	// Entries is the filter, in conntrack(8)'s words, of the entries the
	// verdict says to drop ("-p udp --reply-src 10.244.1.7"): the
	// console's E opens on them, and D deletes them. "" for none.
	Entries string `json:"entries,omitempty"`
	// Facts are the numbers of this table the evidence prints, each with
	// its source and scope (none for a verdict about another table).
	Facts []Fact `json:"facts,omitempty"`
	// rank orders verdicts of equal severity.
	rank int
}

// String renders "KIND — evidence".
func (v Verdict) String() string { return string(v.Kind) + " — " + v.Evidence }

// Thresholds of the rules; documented in each rule's comment.
const (
	NearCapPct      = 90.0 // NEAR CAP: peak ≥ 90 % of max
	CPUBoundPct     = 90.0 // SERVER CPU-BOUND: all CPUs busy ≥ 90 % on average
	IdleCPUPct      = 20.0 // "idle": average busy below 20 %
	DiskBoundPct    = 90.0 // DISK-BOUND: a disk busy ≥ 90 % of the time
	DiskIOWaitPct   = 30.0 // DISK-BOUND: iowait ≥ 30 %
	PortExhaustFrac = 0.9  // PORT EXHAUSTION: one destination's sockets hold 90 % of the local ports
)

// Inputs is everything a verdict is decided from: the newest sample, the
// rates since the previous one, and the open pinned episode, if any.
type Inputs struct {
	Sample  Sample
	Rates   Rates
	Episode *Episode
	// Fill is what fills the table; Demand what is wanted while pinned.
	Fill   Fill
	Demand Demand
	// RecentDrops reports that this host's table dropped packets within
	// RetransLadder before this interval: SYN retransmits now are its
	// own clients retrying, not a network beyond the host.
	RecentDrops bool
	// FullNS are the host's other namespaces at the cap or dropping for
	// it; InsertNS the others that dropped on inserting an entry.
	FullNS, InsertNS []FullNS
	// ChainNS are the other namespaces whose inserts met a chain past the
	// kernel's limit: one hash serves them all.
	ChainNS []FullNS
	// Owners is who holds the entries, by the newest fresh census (nil:
	// not known); Census that census.
	Owners *Owners
	Census *Census
	// Who is the probes' counts over the trailing WhoWindow, over WhoSecs
	// seconds (nil: not counted).
	Who     *Who
	WhoSecs float64
}

// RetransLadder is how long SYN retransmits follow a dropped SYN: the
// 1, 2, 4, 8 s ladder.
const RetransLadder = 15 * time.Second

// rule decides one verdict kind from the inputs: the evidence when it
// holds. The kind's severity and rank are the table's (kindTable).
type rule func(in Inputs) (Verdict, bool)

// Judge applies every kind's rules and returns the verdicts that hold,
// most severe first (the table's order); when none holds it returns a
// single OK.
func Judge(in Inputs) []Verdict {
	var out []Verdict
	facts := factsOf(in)
	for i, spec := range kindTable {
		for _, r := range spec.rules {
			if v, ok := r(in); ok {
				v.Kind, v.Severity, v.rank = spec.Kind, spec.Severity, i
				if v.Table == "" {
					v.Facts = citedFacts(v.Evidence, facts)
				}
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		v := ruleOK(in)
		v.Kind, v.Severity, v.Facts = OK, SevOK, citedFacts(v.Evidence, facts)
		return []Verdict{v}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// Drops is the packets the table lost in the interval (conntrack -S's
// drop). An early drop is not one: it evicts an unassured entry to make
// room and the new packet goes through (__nf_conntrack_alloc tries
// early_drop first and drops only when that fails), so early_drop counts
// evictions, said apart (EarlyDrops).
func (r Rates) Drops() uint64 { return r.CTTotal.Get(Drop) }

// EarlyDrops is the entries evicted in the interval to let a new one in.
func (r Rates) EarlyDrops() uint64 { return r.CTTotal.Get(EarlyDrop) }

// ruleTableFull: the interval's peak count reached nf_conntrack_max and
// either packets were dropped in it or the table has been pinned for two
// intervals or more; or the kernel dropped packets for a full table
// between two reads of the count. Critical. The evidence says what fills
// the table and, while pinned, the demand.
func ruleTableFull(in Inputs) (Verdict, bool) {
	c := in.Sample.Conntrack
	full := in.Rates.FullDrops() - trackerDrops(in) // a clash's, a NAT's or a tracker's drops are not a full table's
	if !Pinned(c) && full == 0 {
		return Verdict{}, false
	}
	drops := in.Rates.Drops()
	pinned := in.Sample.Interval
	if in.Episode != nil {
		drops = max(drops, in.Episode.Drops)
		pinned = in.Episode.Duration()
	}
	if drops == 0 && pinned < 2*in.Sample.Interval {
		return Verdict{}, false
	}
	what := fmt.Sprintf("count pinned at max %s for %s", units.Int(c.Max), units.Dur(pinned))
	if !Pinned(c) {
		what = fmt.Sprintf("the table filled between reads (peak %s of max %s)", units.Int(c.Peak), units.Int(c.Max))
	}
	if ep := in.Episode; !Pinned(c) && ep != nil && ep.Max < c.Max { // the drops are the old cap's
		return Verdict{Evidence: fmt.Sprintf(
			"pinned at max %s for %s, until it was raised to %s in this interval; %s drops, %s",
			units.Int(ep.Max), units.Dur(ep.Duration()), units.Int(c.Max), units.Int(drops), serverState(in.Rates))}, true
	}
	ev := fmt.Sprintf("%s, %s drops, %s: new flows are dropped before they reach any process", what, units.Int(drops), serverState(in.Rates))
	if d := in.Fill.Describe(in.Rates.Entries.TopDests, c.Count, c.Max); d != "" {
		if Pinned(c) {
			what = "pinned " + units.Dur(pinned)
		}
		ev = fmt.Sprintf("%s; %s, %s drops, %s", d, what, units.Int(drops), serverState(in.Rates))
	}
	if Pinned(c) && in.Rates.Entries.Known() { // what gets in is the ceiling, not what is wanted
		// "admits 80 new/s (pinned)", "admits 33 new/s (TCP only, pinned)"
		ev += "; admits " + strings.Replace(in.Rates.Entries.RateText()+" (", ") (", ", ", 1) + "pinned)"
	}
	if d := in.Demand.String(); d != "" {
		ev += "; " + d
	}
	var rulesOut []string
	if d, out := evictionNote(in); d != "" {
		ev += "; " + d
		rulesOut = out
	}
	if d := expiredUnreaped(in); d != "" {
		ev += "; " + d
	}
	if d := in.Who.DominantText(in.WhoSecs); d != "" {
		ev += "; " + d // who opens them now, from the probes
	} else if d := in.Owners.DominantText(); d != "" {
		ev += "; " + d // who holds them, from the census
	}
	return Verdict{Evidence: ev, RulesOut: rulesOut}, true
}

// ruleEarlyDrop: early_drop rose, so the kernel evicted unassured entries to
// make room for new ones. It prints the interval's peak, as what it is: the
// count at the moment the table was fullest can stand above the count read
// at the sample (and, racing, above max). Critical.
func ruleEarlyDrop(in Inputs) (Verdict, bool) {
	n := in.Rates.CTTotal.Get(EarlyDrop)
	if n == 0 {
		return Verdict{}, false
	}
	c := in.Sample.Conntrack
	return Verdict{Evidence: fmt.Sprintf(
		"kernel evicted %s unassured entries to make room (peak %s of max %s)",
		units.Int(n), units.Int(c.Peak), units.Int(c.Max))}, true
}

// ruleClientStalled: SYNs are being retransmitted while the CPUs are idle
// and nothing was dropped locally (no conntrack drops in this interval or
// within the retransmit ladder before it, no listen overflow): this host
// waits on the network, the 1/2/4/8 s SYN ladder. Warning.
func ruleClientStalled(in Inputs) (Verdict, bool) {
	r := in.Rates
	if !r.Known(PartTCP) || !r.Known(PartCPU) || r.SynRetransPS == 0 || r.CPUAll.Busy() >= IdleCPUPct || r.Drops() > 0 || in.RecentDrops ||
		r.ListenOverflowsPS > 0 || r.ListenDropsPS > 0 {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s SYN retransmits/s with CPU %.0f %% and no local drops: connection attempts are lost beyond this host; clients wait 1, 2, 4, 8 s",
		units.Num(r.SynRetransPS), r.CPUAll.Busy())}, true
}

// ruleCPUBound: all CPUs together are busy 90 % of the time or more.
// Warning.
func ruleCPUBound(in Inputs) (Verdict, bool) {
	u := in.Rates.CPUAll
	if !in.Rates.Known(PartCPU) || u.Busy() < CPUBoundPct {
		return Verdict{}, false
	}
	busy := fmt.Sprintf("CPU %.0f %% busy (user %.0f %%, system %.0f %%, softirq %.0f %%)", u.Busy(), u.User, u.System, u.SoftIRQ)
	if in.Rates.Drops() > 0 || Pinned(in.Sample.Conntrack) { // whose CPU is not read: it need not be the server's
		return Verdict{Evidence: busy +
			" while the table drops: whose is not read, and clients on this host retrying what it drops spend CPU too; free the table first"}, true
	}
	return Verdict{Evidence: busy + " with no table drops: the work itself is the limit"}, true
}

// ruleDiskBound: a disk is busy 90 % of the time, or iowait is 30 % or
// more. Warning.
func ruleDiskBound(in Inputs) (Verdict, bool) {
	r := in.Rates
	util, iowait := r.MaxDiskUtil(), r.CPUAll.IOWait
	if !r.Known(PartDisks) {
		util = 0
	}
	if !r.Known(PartCPU) {
		iowait = 0
	}
	if util < DiskBoundPct && iowait < DiskIOWaitPct {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"disk busy %.0f %%, iowait %.0f %%, %s IO/s: storage is the limit",
		util, iowait, units.Num(r.DiskIOPS()))}, true
}

// ruleNearCap: the interval's peak reached 90 % of max without pinning.
// Warning.
func ruleNearCap(in Inputs) (Verdict, bool) {
	c := in.Sample.Conntrack
	if c.Status != TableTracked || c.Max == 0 || Pinned(c) || Percent(c.Peak, c.Max) < NearCapPct {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"peak %s of max %s (%.0f %%); ceiling %s, observed %s",
		units.Int(c.Peak), units.Int(c.Max), Percent(c.Peak, c.Max), CeilingText(c, in.Fill), in.Rates.Entries.RateText())}, true
}

func ruleOK(in Inputs) Verdict {
	c := in.Sample.Conntrack
	var table string
	switch c.Status {
	case TableTracked:
		table = fmt.Sprintf("count %s of max %s (%.0f %%), %s%s", units.Int(c.Count), units.Int(c.Max), Percent(c.Count, c.Max), dropsText(in.Rates),
			resolvedClashes(in.Rates, ""))
	case TableUntracked:
		table = "nothing tracked in this namespace yet"
		if in.Sample.Namespaces != nil {
			table = "this namespace untracked"
		}
	default:
		table = "no conntrack table"
	}
	return Verdict{Evidence: fmt.Sprintf("%s%s, %s, %s",
		table, namespacesNote(in.Sample), cpuText(in.Rates), in.Rates.Entries.RateText())}
}
