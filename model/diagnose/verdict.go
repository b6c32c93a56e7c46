package diagnose

import (
	"sort"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/verdict"
)

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
	Sample  model.Sample
	Rates   model.Rates
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
	FullNS, InsertNS []model.FullNS
	// ChainNS are the other namespaces whose inserts met a chain past the
	// kernel's limit: one hash serves them all.
	ChainNS []model.FullNS
	// Owners is who holds the entries, by the newest fresh census (nil:
	// not known); Census that census.
	Owners *model.Owners
	Census *model.Census
	// Who is the probes' counts over the trailing WhoWindow, over WhoSecs
	// seconds (nil: not counted).
	Who     *model.Who
	WhoSecs float64
}

// RetransLadder is how long SYN retransmits follow a dropped SYN: the
// 1, 2, 4, 8 s ladder.
const RetransLadder = 15 * time.Second

// rule decides one verdict kind from the inputs: the evidence when it
// holds. The kind's severity and rank are the table's (kindTable).
type rule func(in Inputs) (verdict.Verdict, bool)

// Judge applies every kind's rules and returns the verdicts that hold,
// most severe first (the table's order); when none holds it returns a
// single OK.
func Judge(in Inputs) []verdict.Verdict {
	var out []verdict.Verdict
	var rank []int
	for i, spec := range kindTable {
		for _, r := range spec.rules {
			if v, ok := r(in); ok {
				v.Kind, v.Severity = spec.Kind, spec.Severity
				out, rank = append(out, v), append(rank, i)
			}
		}
	}
	if len(out) == 0 {
		v := ruleOK(in)
		v.Kind, v.Severity = verdict.OK, verdict.SevOK
		return []verdict.Verdict{v}
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rank[order[a]] < rank[order[b]] })
	sorted := make([]verdict.Verdict, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted
}

// says is a verdict of clauses.
func says(cs ...verdict.Clause) verdict.Verdict { return verdict.Verdict{Clauses: cs} }

// ruleTableFull: the interval's peak count reached nf_conntrack_max and
// either packets were dropped in it or the table has been pinned for two
// intervals or more; or the kernel dropped packets for a full table
// between two reads of the count. Critical. The evidence says what fills
// the table and, while pinned, the demand.
func ruleTableFull(in Inputs) (verdict.Verdict, bool) {
	c := in.Sample.Conntrack
	full := in.Rates.FullDrops() - trackerDrops(in) // a clash's, a NAT's or a tracker's drops are not a full table's
	if !Pinned(c) && full == 0 {
		return verdict.Verdict{}, false
	}
	drops := factDrops(in)
	pinned := in.Sample.Interval
	if ep := in.Episode; ep != nil {
		if ep.Drops > in.Rates.Drops() {
			drops = verdict.N("drops", ep.Drops, verdict.Packets).From("conntrack -S drop, summed over CPUs", model.ThisTable+", the pin since "+ep.Seen.Format("15:04:05"))
		}
		pinned = ep.Duration()
	}
	// Sample times jitter by milliseconds: a second's pin is said "1 s",
	// as the episode line says it, not "999 ms".
	pinned = pinned.Round(100 * time.Millisecond)
	if drops.Value == 0 && pinned < 2*in.Sample.Interval {
		return verdict.Verdict{}, false
	}
	if ep := in.Episode; !Pinned(c) && ep != nil && ep.Max < c.Max { // the drops are the old cap's
		return says(
			say(verdict.Lead, "table-full.raised",
				verdict.N("old max", ep.Max, verdict.Entries).From("nf_conntrack_max", model.ThisTable+", the pin since "+ep.Seen.Format("15:04:05")),
				verdict.D("pinned", ep.Duration()).From("the episode at the cap", model.ThisTable), model.FactMax(c)),
			say(verdict.Numbers, "drops", drops),
			serverState(in).After(", ")), true
	}
	var cs []verdict.Clause
	dropped := say(verdict.Numbers, "drops", drops).After(", ")
	if d := in.Fill.DescribeClauses(in.Rates.Entries.TopDests, c); d != nil {
		lead := say(verdict.Lead, "table-full.pinned-for", verdict.D("pinned", pinned).From("the episode at the cap", model.ThisTable))
		if !Pinned(c) {
			lead = say(verdict.Lead, "table-full.between-reads", factPeak(in), model.FactMax(c))
		}
		cs = append(append(cs, d...), lead, dropped, serverState(in).After(", "))
	} else {
		lead := say(verdict.Lead, "table-full.pinned", model.FactMax(c), verdict.D("pinned", pinned).From("the episode at the cap", model.ThisTable))
		if !Pinned(c) {
			lead = say(verdict.Lead, "table-full.between-reads", factPeak(in), model.FactMax(c))
		}
		cs = append(cs, lead, dropped, serverState(in).After(", "),
			say(verdict.Explain, "table-full.meaning").After(": "))
	}
	if Pinned(c) && in.Rates.Entries.Known() { // what gets in is the ceiling, not what is wanted
		cs = append(cs, in.Rates.Entries.AdmitsClause())
	}
	if d, ok := in.Demand.Clause(); ok {
		cs = append(cs, d)
	}
	var rulesOut []string
	if d, out, ok := evictionNote(in); ok {
		cs = append(cs, d)
		rulesOut = out
	}
	if d, ok := expiredUnreaped(in); ok {
		cs = append(cs, d)
	}
	if d := in.Who.DominantClauses(in.WhoSecs); d != nil {
		cs = append(cs, d...) // who opens them now, from the probes
	} else if d := in.Owners.DominantClauses(); d != nil {
		cs = append(cs, d...) // who holds them, from the census
	}
	v := says(cs...)
	v.RulesOut = rulesOut
	return v, true
}

// ruleEarlyDrop: early_drop rose, so the kernel evicted unassured entries to
// make room for new ones. It prints the interval's peak, as what it is: the
// count at the moment the table was fullest can stand above the count read
// at the sample (and, racing, above max). Critical.
func ruleEarlyDrop(in Inputs) (verdict.Verdict, bool) {
	if in.Rates.CTTotal.Get(model.EarlyDrop) == 0 {
		return verdict.Verdict{}, false
	}
	return says(say(verdict.Lead, "early-drop",
		factCounter(in, model.EarlyDrop), factPeak(in), model.FactMax(in.Sample.Conntrack))), true
}

// ruleClientStalled: SYNs are being retransmitted while the CPUs are idle
// and nothing was dropped locally (no drop of any of the host's tables,
// chains included, in this interval or within the retransmit ladder
// before it, no listen overflow): this host waits on the network, the
// 1/2/4/8 s SYN ladder. Warning.
func ruleClientStalled(in Inputs) (verdict.Verdict, bool) {
	r := in.Rates
	if !r.Known(model.PartTCP) || !r.Known(model.PartCPU) || r.SynRetransPS == 0 || r.CPUAll.Busy() >= IdleCPUPct || localDrops(in) || in.RecentDrops ||
		r.ListenOverflowsPS > 0 || r.ListenDropsPS > 0 {
		return verdict.Verdict{}, false
	}
	return says(
		say(verdict.Lead, "client-stalled",
			verdict.N("syn retransmits", r.SynRetransPS, verdict.PerSecond).From("TcpExtTCPSynRetrans (/proc/net/netstat)", hostInterval(in)), factCPU(in)),
		say(verdict.Explain, "client-stalled.meaning").After(": ")), true
}

// localDrops reports whether the host dropped packets for its tables in
// the interval: this table's drops, inserts refused for a chain past the
// kernel's limit (they drop without counting drop) in any namespace — one
// hash serves them all — and other namespaces full or refusing inserts.
func localDrops(in Inputs) bool {
	r := in.Rates
	return r.Drops() > 0 || r.CTTotal.Get(model.ChainTooLong) > 0 || len(in.ChainNS) > 0 || len(in.FullNS) > 0 || len(in.InsertNS) > 0
}

// ruleCPUBound: all CPUs together are busy 90 % of the time or more.
// Warning.
func ruleCPUBound(in Inputs) (verdict.Verdict, bool) {
	u := in.Rates.CPUAll
	if !in.Rates.Known(model.PartCPU) || u.Busy() < CPUBoundPct {
		return verdict.Verdict{}, false
	}
	busy := say(verdict.Lead, "cpu-bound", factCPU(in),
		verdict.N("user", u.User, verdict.Percent), verdict.N("system", u.System, verdict.Percent), verdict.N("softirq", u.SoftIRQ, verdict.Percent))
	if in.Rates.Drops() > 0 || Pinned(in.Sample.Conntrack) { // whose CPU is not read: it need not be the server's
		return says(busy, say(verdict.Explain, "cpu-bound.while-dropping").After(" ")), true
	}
	cs := []verdict.Clause{busy, say(verdict.Explain, "cpu-bound.alone").After(" ")}
	if d, ok := resolvedClashes(in, ""); ok { // what the busy machine's flows raced for, harmless: said as OK says it
		cs = append(cs, d)
	}
	return says(cs...), true
}

// ruleDiskBound: a disk is busy 90 % of the time, or iowait is 30 % or
// more. Warning.
func ruleDiskBound(in Inputs) (verdict.Verdict, bool) {
	r := in.Rates
	util, iowait := r.MaxDiskUtil(), r.CPUAll.IOWait
	if !r.Known(model.PartDisks) {
		util = 0
	}
	if !r.Known(model.PartCPU) {
		iowait = 0
	}
	if util < DiskBoundPct && iowait < DiskIOWaitPct {
		return verdict.Verdict{}, false
	}
	return says(say(verdict.Lead, "disk-bound",
		verdict.N("util", util, verdict.Percent).From("/proc/diskstats, the busiest disk", hostInterval(in)),
		verdict.N("iowait", iowait, verdict.Percent).From("/proc/stat", hostInterval(in)),
		verdict.N("disk IO/s", r.DiskIOPS(), verdict.PerSecond).From("/proc/diskstats", hostInterval(in))),
		say(verdict.Explain, "disk-bound.meaning").After(": ")), true
}

// ruleNearCap: the interval's peak reached 90 % of max without pinning.
// Warning.
func ruleNearCap(in Inputs) (verdict.Verdict, bool) {
	c := in.Sample.Conntrack
	if c.Status != model.TableTracked || c.Max == 0 || Pinned(c) || arith.Percent(c.Peak, c.Max) < NearCapPct {
		return verdict.Verdict{}, false
	}
	return says(say(verdict.Lead, "near-cap", factPeak(in), model.FactMax(c), model.FactFull(factPeak(in), c.Max)),
		ceilingClause(c, in.Fill),
		in.Rates.Entries.ObservedClause().After(", ")), true
}

func ruleOK(in Inputs) verdict.Verdict {
	c := in.Sample.Conntrack
	var cs []verdict.Clause
	switch c.Status {
	case model.TableTracked:
		cs = append(cs, say(verdict.Lead, "ok.table", model.FactCount(c), model.FactMax(c), model.FactFull(model.FactCount(c), c.Max)),
			dropsClause(in).After(", "))
		if d, ok := resolvedClashes(in, ""); ok {
			cs = append(cs, d)
		}
	case model.TableUntracked:
		if in.Sample.Namespaces != nil {
			cs = append(cs, say(verdict.Lead, "ok.untracked"))
		} else {
			cs = append(cs, say(verdict.Lead, "ok.empty"))
		}
	default:
		cs = append(cs, say(verdict.Lead, "ok.no-table"))
	}
	if d, ok := namespacesNote(in.Sample); ok {
		cs = append(cs, d)
	}
	return says(append(cs, cpuClause(in).After(", "), in.Rates.Entries.RateClause().After(", "))...)
}
