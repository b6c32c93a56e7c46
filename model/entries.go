package model

import (
	"encoding/json"

	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// Entries counts conntrack entries where the kernel makes and ends them:
// ctnetlink's NEW and DESTROY events. Counters are cumulative within one
// subscription (Epoch); a new subscription starts them at zero again.
type Entries struct {
	// Source is EntriesEvents when the counters below were kept, "" when
	// nothing counted them (Note says why).
	Source string `json:"source,omitempty"`
	// Note says why entries are not counted: far from the cap, or no
	// CAP_NET_ADMIN.
	Note string `json:"note,omitempty"`
	// Epoch names the subscription the counters belong to.
	Epoch uint64 `json:"epoch,omitempty"`
	// New counts NEW events per protocol (ProtoTCP, …): a NEW event says
	// the protocol, not yet whether the connection will be answered.
	New [NumProtos]uint64 `json:"new"`
	// Ended counts DESTROY events by the class the entry ended in.
	Ended ClassCounts `json:"ended"`
	// Evicted counts, of those, the entries the kernel ended on its own
	// with time left on their timeout (the event still carries one; an
	// entry that ran out carries none, and one user space deleted names
	// its deleter): near the cap, the garbage collector's evictions, which
	// no per-CPU counter counts, and the packet path's early drops. A TCP
	// tuple reopened from TIME_WAIT ends the same way.
	Evicted ClassCounts `json:"evicted"`
	// EvictedUnknown says Evicted was not counted: the kernel's DESTROY
	// events carry the time left (CTA_TIMEOUT) only since 5.11, so before
	// it no event tells an eviction from an expiry. Not known, not 0.
	EvictedUnknown bool `json:"evicted_unknown,omitempty"`
	// Lost counts events the kernel could not deliver (the socket's
	// receive queue overran: ENOBUFS); the rates are then lower bounds.
	Lost uint64 `json:"lost,omitempty"`
	// TopDests and TopSources are the heaviest destinations ("udp/53")
	// and source addresses of the entries made since the previous sample,
	// bounded by a sketch (exact below its size).
	TopDests   []tally.Count `json:"top_dests,omitempty"`
	TopSources []tally.Count `json:"top_sources,omitempty"`
}

// EntriesEvents is Entries.Source when ctnetlink events were counted.
const EntriesEvents = "events"

// Counted reports whether the events were counted.
func (e Entries) Counted() bool { return e.Source == EntriesEvents }

// Why a sample carries no event counts by design, not for a failure: far
// from the cap they are not subscribed to, and a single sample has no
// interval to count over.
const (
	EntriesFarFromCap = "counted near the cap only; the table is far from it"
	EntriesOneShot    = "counted between samples; a single sample has none"
)

// OffByDesign reports that the events were not counted because tablefull
// does not count them here, not because counting failed: a part off by
// design is not a part that failed.
func (e Entries) OffByDesign() bool {
	return !e.Counted() && (e.Note == EntriesFarFromCap || e.Note == EntriesOneShot)
}

// MaxEntryTops bounds the top lists an Entries carries.
const MaxEntryTops = 8

// Basis says what a rate of new entries was counted from.
type Basis string

// The bases of a rate of new entries.
const (
	// BasisUnknown: nothing counted new entries.
	BasisUnknown Basis = ""
	// BasisEvents: every protocol, counted from ctnetlink events.
	BasisEvents Basis = "events"
	// BasisTCPOpens: TCP only, from the opens counters; a connection
	// whose two ends are on this host opens twice and is counted once,
	// so this is a lower bound when the host both calls out and serves.
	BasisTCPOpens Basis = "tcp-opens"
)

// EntryRates are the new entries per second of an interval, per class.
type EntryRates struct {
	Basis Basis
	// PerClass is new entries/s by class; Total sums it.
	PerClass [NumClasses]float64
	Total    float64
	// LostPS is events lost per second: Total is then a lower bound.
	LostPS float64
	// EvictedPS is the entries evicted per second, by class (see
	// Entries.Evicted); not known where EvictedUnknown.
	EvictedPS      [NumClasses]float64
	EvictedUnknown bool
	// TopDests and TopSources are per-interval counts (see Entries).
	TopDests, TopSources []tally.Count
	// Unsplit are the protocols whose new entries no ended entry could
	// split into classes (none of that protocol ended yet): their rate
	// is put in the protocol's first class until a census's mix says
	// better (FillOf).
	Unsplit [NumProtos]bool
}

// Known reports whether the rate was counted at all.
func (r EntryRates) Known() bool { return r.Basis != BasisUnknown }

// Evicted is the entries evicted per second over every class; ok is
// false when events did not count the interval, or the kernel's events
// cannot tell an eviction (then it is not known, not 0).
func (r EntryRates) Evicted() (perSec float64, ok bool) {
	if r.Basis != BasisEvents || r.EvictedUnknown {
		return 0, false
	}
	for _, v := range r.EvictedPS {
		perSec += v
	}
	return perSec, true
}

// splitShare is how many DESTROY events of a protocol an interval needs
// before its own mix is trusted over the subscription's.
const splitShare = 20

// entryRates counts the interval's new entries. With events on both
// samples of one subscription, each protocol's NEW events are split into
// classes by how that protocol's entries ended (the interval's DESTROY
// mix, or the subscription's when the interval saw few): in a steady state
// each class ends as fast as it begins. An interval not counted from
// end to end (events off, or just switched on) falls back to TCP opens.
func entryRates(prev, cur Sample, secs float64) EntryRates {
	p, c := prev.Entries, cur.Entries
	if !c.Counted() || !p.Counted() || p.Epoch != c.Epoch { // not counted across the interval
		if prev.Absent.Has(PartTCP) || cur.Absent.Has(PartTCP) {
			return EntryRates{} // no TCP opens to fall back on: not counted, not 0
		}
		return tcpOpenRates(prev.TCP, cur.TCP, secs)
	}
	r := EntryRates{Basis: BasisEvents, LostPS: perSec(p.Lost, c.Lost, secs),
		TopDests: c.TopDests, TopSources: c.TopSources, EvictedUnknown: p.EvictedUnknown || c.EvictedUnknown}
	for cl := range r.EvictedPS {
		r.EvictedPS[cl] = perSec(p.Evicted[cl], c.Evicted[cl], secs)
	}
	for pr := Proto(0); pr < NumProtos; pr++ {
		n := perSec(p.New[pr], c.New[pr], secs)
		if n == 0 {
			continue
		}
		classes := pr.Classes()
		mix := make([]float64, len(classes))
		var interval, all float64
		for _, cl := range classes {
			interval += float64(Increase(p.Ended[cl], c.Ended[cl]))
			all += float64(c.Ended[cl])
		}
		for i, cl := range classes {
			switch {
			case interval >= splitShare:
				mix[i] = float64(Increase(p.Ended[cl], c.Ended[cl])) / interval
			case all > 0:
				mix[i] = float64(c.Ended[cl]) / all
			case i == 0:
				mix[i] = 1
				r.Unsplit[pr] = true
			}
		}
		for i, cl := range classes {
			r.PerClass[cl] += n * mix[i]
		}
		r.Total += n
	}
	return r
}

// tcpOpenRates is the fallback without events: TCP only, a connection
// between two local ends (an active and a passive open) counted once.
func tcpOpenRates(p, c TCP, secs float64) EntryRates {
	n := max(perSec(p.ActiveOpens, c.ActiveOpens, secs), perSec(p.PassiveOpens, c.PassiveOpens, secs))
	r := EntryRates{Basis: BasisTCPOpens, Total: n}
	r.PerClass[ClassTCPDone] = n
	r.Unsplit[ProtoTCP] = true // an open does not say how it ends
	return r
}

// MarshalJSON writes the counters only when they were counted: a part not
// read is not written as zeros.
func (e Entries) MarshalJSON() ([]byte, error) {
	type plain Entries
	if e.Counted() {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		Note string `json:"note,omitempty"`
	}{e.Note})
}

// RateText says a rate of new entries with what it counts: "80 new/s",
// "80 new/s (TCP only)", "new entries not counted".
func (r EntryRates) RateText() string { return r.RateClause().Text() }

// RateClause is RateText's clause.
func (r EntryRates) RateClause() verdict.Clause { return r.rateSaid("rate") }

// rateSaid is the rate's clause of kind said ("rate", "observed",
// "admits"): the key names how it was counted, "rate.tcp".
func (r EntryRates) rateSaid(said string) verdict.Clause {
	rate := verdict.N("new entries/s", r.Total, verdict.PerSecond)
	switch r.Basis {
	case BasisEvents:
		rate = rate.From("ctnetlink NEW events", ThisTable)
		if r.LostPS > 0 {
			return say(verdict.Numbers, said+".lost", rate.Lower())
		}
		return say(verdict.Numbers, said, rate)
	case BasisTCPOpens:
		return say(verdict.Numbers, said+".tcp", rate.From("TCP active and passive opens (/proc/net/snmp)", "the host"))
	}
	return say(verdict.Numbers, said+".unknown")
}

// ObservedClause is "observed 80 new/s".
func (r EntryRates) ObservedClause() verdict.Clause {
	if !r.Known() {
		return r.RateClause()
	}
	return r.rateSaid("observed")
}

// AdmitsClause is what a pinned table lets in: "admits 80 new/s
// (pinned)", "admits 33 new/s (TCP only, pinned)".
func (r EntryRates) AdmitsClause() verdict.Clause { return r.rateSaid("admits") }
