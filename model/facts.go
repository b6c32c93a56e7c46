package model

import (
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
// countClauses are counts as a list: "10.0.1.5 (800), 10.0.2.9 (20)",
// a clause each, the first after a space.
func countClauses(cs []tally.Count, width int, source, scope string) []verdict.Clause {
	var out []verdict.Clause
	for i, c := range cs {
		sep := ", "
		if i == 0 {
			sep = " "
		}
		out = append(out, say(verdict.Who, "count", verdict.W("key", safe.Text(c.Key, width)),
			verdict.N("n", max(0, c.N), verdict.Entries).From(source, scope)).After(sep))
	}
	return out
}

// words are the templates of the clauses the samples' own data says
// (owners, NAT pools, namespaces), by clause key.
var words = verdict.Words{
	"count":                   "{key} ({n})",
	"cilium.refusal":          "{refused} packets for {reason}",
	"cilium.by":               "opened most by",
	"cilium.to":               "to",
	"cilium.only-to":          "opened most to",
	"listener":                "{listener}",
	"listener.owned":          "{listener} of {owner}",
	"listener.fullest":        "fullest: {listener}",
	"listener.fullest.owned":  "fullest: {listener} of {owner}",
	"listener.queue":          "{waiting} waiting, backlog {backlog}",
	"listener.somaxconn-cut":  "(= somaxconn {somaxconn}: it may have asked for more)",
	"listener.somaxconn":      "(as asked; somaxconn {somaxconn})",
	"rate":                    "{new entries/s} new/s",
	"rate.lost":               "{new entries/s} new/s (events lost)",
	"rate.tcp":                "{new entries/s} new/s (TCP only)",
	"rate.unknown":            "new entries not counted",
	"observed":                "observed {new entries/s} new/s",
	"observed.lost":           "observed {new entries/s} new/s (events lost)",
	"observed.tcp":            "observed {new entries/s} new/s (TCP only)",
	"observed.unknown":        "observed new entries not counted",
	"admits":                  "admits {new entries/s} new/s (pinned)",
	"admits.lost":             "admits {new entries/s} new/s (events lost, pinned)",
	"admits.tcp":              "admits {new entries/s} new/s (TCP only, pinned)",
	"admits.unknown":          "admits new entries not counted (pinned)",
	"nat.pool":                "{rule} in {chain} ({tuples} ports for each source–destination pair)",
	"nat.pool.addresses":      "{rule} in {chain} ({tuples} ports for each source–destination pair; its {addresses} addresses take other pairs, not more of one)",
	"nat.ports":               "the source NAT {rule} in {chain} ({tuples} ports for each source–destination pair) finds no free source port for new flows (it tries {tries} before it drops, so drops begin before every port is taken)",
	"nat.ports.addresses":     "the source NAT {rule} in {chain} ({tuples} ports for each source–destination pair; its {addresses} addresses take other pairs, not more of one) finds no free source port for new flows (it tries {tries} before it drops, so drops begin before every port is taken)",
	"nat.fix":                 "widen its ports, reuse connections (keep-alive) or spread them over more destinations",
	"nat.fix.time-wait":       "shorten TIME_WAIT on that path",
	"nat.fix.random":          "use random-fully",
	"nat.fix.addresses":       "more egress addresses help only other sources' pairs (each source–destination pair gets one address)",
	"nat.busiest":             "the census's busiest destination {dest} ({dest n} entries)",
	"nat.busiest.service":     "the census's busiest destination {dest} (Service {service}) ({dest n} entries)",
	"nat.busiest.port":        "{port} ({port n})",
	"nat.time-wait":           "{to it} to it in TIME_WAIT ({time_wait} in all) still hold their tuples",
	"nat.time-wait.reclaimed": "{to it} to it in TIME_WAIT ({time_wait} in all) hold their tuples until a new flow's last tries take them back (this kernel reclaims TIME_WAIT tuples, 6.5 on)",
	"nat.time-wait.unknown":   "{to it} to it in TIME_WAIT ({time_wait} in all) hold their tuples (before 6.5; from 6.5 a new flow's last tries take them back)",
	"who.opens":               "{share} of new connections from {owner} to {dest} ({rate}/s)",
	"who.opens.life":          "{share} of new connections from {owner} to {dest} ({rate}/s, median life under {life})",
	"who.churn":               OnePerRequest,
	"who.drops":               "{theirs} of the table's {table drops} drops in the last {window} are its packets",
	"who.drops.by-rules":      "(a rule dropped {by rules} more that conntrack found invalid or never saw)",
	"who.drops.before":        "(the probes saw {before conntrack} more dropped before conntrack, by other rules)",
	"who.drops.share":         "{their share} of the table's drops in the last {window} are its packets",
	"who.held":                "{share} of the table's entries held by {owner}",
	"who.accepted":            "{share} of the table's entries accepted by {owner}",
	"who.forwarded":           "{share} of the table's entries forwarded from {owner}",
	"who.peer.to":             "→ {peer}",
	"who.peer.from":           "from {peer}",
	"flush":                   "user space deleted {deleted} entries ({udp} UDP) in {took} at {at}",
	"flush.under-way":         "user space is deleting entries: {deleted} ({udp} UDP) in {took} since {at}, under way",
	"flush.to":                "{dest} {n}",
	"flush.to-service":        "{service} ({dest}) {n}",
	"clash.dns":               "the census holds {dns} UDP/53 entries (DNS lookups)",
	"clash.no-dns":            "the census holds no UDP/53 entries: flows other than DNS lookups raced",
	"netns.full":              "in {netns} ({within}) — {ns count} / {cap} entries, {ns drops} drops",
	"netns.full-peak":         "in {netns} ({within}) — peaked at {ns peak} / {cap} entries ({ns count} now), {ns drops} drops",
	"who.served":              "{share} of the table's entries are requests to {peer} answered by {owner}, their clients' sockets gone: the clients make them",
}

// say is words' clause key of weight w, filled by facts.
func say(w verdict.Weight, key string, facts ...verdict.Fact) verdict.Clause {
	return words.Say(w, key, facts...)
}
