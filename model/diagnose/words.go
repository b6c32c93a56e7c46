package diagnose

import "github.com/tablefull/tablefull/model/verdict"

// The kinds' words: each kind's clause templates by key, its row of the
// kinds' table holding them; sharedWords are the clauses any kind's
// evidence may say (the drops, the server, the arithmetic).

var tableFullWords = verdict.Words{
	"netns.full.meaning":       "new flows into it are dropped while this namespace reads fine",
	"netns.more":               "{more} more namespaces full",
	"table-full.between-reads": "the table filled between reads (peak {peak} of max {max})",
	"table-full.meaning":       "new flows are dropped before they reach any process",
	"table-full.pinned":        "count pinned at max {max} for {pinned}",
	"table-full.pinned-for":    "pinned {pinned}",
	"table-full.raised":        "pinned at max {old max} for {pinned}, until it was raised to {max} in this interval",
}

var earlyDropWords = verdict.Words{
	"early-drop": "kernel evicted {early_drop} unassured entries to make room (peak {peak} of max {max})",
}

var listenWords = verdict.Words{
	"listen.more":    "(and {more} more)",
	"listen":         "{overflows} listen overflows/s, {listen drops} listen drops/s",
	"listen.fix":     "(raise its backlog and somaxconn)",
	"listen.meaning": "a server accepts slower than connections arrive",
	"listen.note":    "{note}",
}

var natPortsWords = verdict.Words{
	"nat.not-full": "not a full table",
}

var allowanceWords = verdict.Words{
	"allowance":                    "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}) with nf_conntrack at {count} of max {max}",
	"allowance.available":          "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}, {available} more it may track) with nf_conntrack at {count} of max {max}",
	"allowance.no-table":           "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}) with nf_conntrack not read",
	"allowance.available.no-table": "the instance's connection tracking refused {refused} packets ({driver} conntrack_allowance_exceeded on {iface}, {available} more it may track) with nf_conntrack not read",
	"allowance.fix":                "a larger instance type raises it, or fewer tracked flows (security-group rules that need no tracking)",
	"allowance.meaning":            "the limit is the instance type's, not this kernel's",
}

var zoneFullWords = verdict.Words{
	"zone-full":         "{zone} holds {n} entries of its OVS limit {limit}",
	"zone-full.table":   "(the table at {count} of max {max})",
	"zone-full.fix":     "raise it with ovs-appctl dpctl/ct-set-limits {zone},limit=N",
	"zone-full.meaning": "OVS refuses that zone's new connections, whatever nf_conntrack_max says",
}

var insertClashWords = verdict.Words{
	"clash.not-full":        "not a full table",
	"clash.old":             "two flows raced for one tuple ({why})",
	"clash.old.fix":         "single-request-reopen, a node-local DNS cache or DNS over TCP",
	"clash.old.meaning":     "parallel UDP lookups behind a DNAT, the 5 s DNS delay on kernels before 5.6 (this one counts no resolved clashes)",
	"clash.recent":          "flows clashed on a tuple ({why})",
	"clash.recent.meaning":  "this kernel resolves two UDP flows racing for one (clash_resolve, since 5.6), so these are what it cannot: two flows whose replies would share a tuple (a NAT mapping both to one), an entry already dying, or TCP; not the 5 s DNS race",
	"insert-drops":          "{insert drops} packets dropped on inserting their entry (insert_failed and drop) while the count is {count} of max {max}",
	"netns.insert":          "in {netns} ({within}) — {insert drops} packets dropped on inserting their entry at {ns count} / {cap} entries",
	"netns.insert.meaning":  "insert_failed is a clash, or a source NAT that found no free tuple; its ruleset is not read",
	"netns.insert.more":     "{more} more namespaces dropping so",
	"netns.insert.not-full": "not a full table",
}

var invalidWords = verdict.Words{
	"invalid":         "{invalid/s} packets/s conntrack found invalid ({invalid} in the interval)",
	"invalid.dropped": "{by tracker} of them dropped by the tracker itself (counted in drop with the table at {count} of {max}: not a full table)",
	"invalid.meaning": "out of the TCP window, or flows it lost track of; a ruleset dropping ct state invalid stalls or resets them",
}

var ciliumWords = verdict.Words{
	"cilium.refused":              "Cilium dropped",
	"cilium.table.maps-unread":    "with nf_conntrack at {count} of max {max} (its maps not read)",
	"cilium.no-table.maps-unread": "with nf_conntrack not read (its maps not read)",
	"cilium.table":                "with nf_conntrack at {count} of max {max}",
	"cilium.no-table":             "with nf_conntrack not read",
	"cilium.map":                  "Cilium's conntrack map {map} holds {entries} of its {size} entries ({full})",
	"cilium.nat.map":              "Cilium's NAT map {map} holds {entries} of its {size} entries ({full})",
	"cilium.dropped":              "since its previous read Cilium dropped",
	"cilium.fix":                  "near its size Cilium evicts live flows or fails to track new ones: raise {knob} (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
	"cilium.nat.fix":              "near its size Cilium finds no free source port for new flows and drops them (its drop reason: no mapping for NAT masquerade): raise {knob} (or bpf-map-dynamic-size-ratio) in Cilium's configuration",
	"cilium.meaning":              "the limit is Cilium's, not this kernel's table",
}

var portsWords = verdict.Words{
	"ports":         "{taken} of the {ports} local ports ({low}-{high}) are taken by sockets from {src} to {dst} ({time wait} in TIME_WAIT)",
	"ports.fix":     "widen ip_local_port_range, add source addresses, reuse connections, tcp_tw_reuse for outbound, IP_BIND_ADDRESS_NO_PORT before bind()",
	"ports.meaning": "connect() to it fails once they are all taken, whatever the host's totals",
}

var hashChainsWords = verdict.Words{
	"hash-chains":                "{chain-too-long} chain-too-long events",
	"hash-chains.netns":          "{chain-too-long} chain-too-long events in {netns}",
	"hash-chains.split":          "{chain-too-long} chain-too-long events ({in netns} in {netns})",
	"hash-chains.split.more":     "{chain-too-long} chain-too-long events ({in netns} in {netns} and {in more} in {more} more namespaces)",
	"hash-chains.split.own":      "{chain-too-long} chain-too-long events ({in netns} in {netns}, {chaintoolong} in this one)",
	"hash-chains.split.more.own": "{chain-too-long} chain-too-long events ({in netns} in {netns} and {in more} in {more} more namespaces, {chaintoolong} in this one)",
	"hash-chains.count":          "(each a packet dropped, counted in insert_failed) while the count is {count} of max {max}, average depth {depth} (2 × {count} entries ÷ {buckets} buckets)",
	"hash-chains.count.unread":   "(each a packet dropped, counted in insert_failed) while the count is {count} of max {max}, average depth {depth} (2 × {count} entries, the other namespaces' not read ÷ {buckets} buckets)",
	"hash-chains.count.all":      "(each a packet dropped, counted in insert_failed) while the count is {count} of max {max}, average depth {depth} (2 × {all} entries of every namespace: this one's {count} and the others' {others}, one hash for all ÷ {buckets} buckets)",
	"hash-chains.double":         "the buckets already outnumber the entries counted, so the long chains are of entries not read here or of flows that hash alike: doubling the hashsize to {want} buckets ({memory} of kernel memory) spreads them, not max",
	"hash-chains.fix":            "raise the hashsize to {want} buckets ({memory} of kernel memory), not max",
}

var staleWords = verdict.Words{
	"stale":         "{stale} of the census's {census} entries keep timeouts given before their class's hold was lowered ({class}: {of class}, up to {left} left; its hold now {hold})",
	"stale.fix":     "conntrack -D drops them now",
	"stale.meaning": "the count falls only as they run out or see a packet, not by the knob",
}

var staleDNATWords = verdict.Words{
	"stale-dnat":                      "{stale} UDP entries a DNAT sent to",
	"stale-dnat.one":                  "{stale} UDP entry a DNAT sent to",
	"stale-dnat.target":               "{target}",
	"stale-dnat.target.service":       "{target} (Service {service})",
	"stale-dnat.target.via":           "{target} (asked as {via})",
	"stale-dnat.target.n":             "{target} ({n})",
	"stale-dnat.target.service.via":   "{target} (Service {service}, asked as {via})",
	"stale-dnat.target.service.n":     "{target} (Service {service}, {n})",
	"stale-dnat.target.via.n":         "{target} (asked as {via}, {n})",
	"stale-dnat.target.service.via.n": "{target} (Service {service}, asked as {via}, {n})",
	"stale-dnat.gone":                 "which the ruleset no longer names (none ever saw a reply)",
	"stale-dnat.gone.replied-one":     "which the ruleset no longer names (it saw replies before its target went)",
	"stale-dnat.gone.replied":         "which the ruleset no longer names ({replied} saw replies before their target went)",
	"stale-dnat.fix":                  "conntrack -D {filter} drops them now (E then D in the console)",
	"stale-dnat.meaning":              "each packet their clients send refreshes them, so those flows stay blackholed while the clients keep their sockets",
	"stale-dnat.not-full":             "not a full table",
}

var flushWords = verdict.Words{
	"flush.meaning": "their flows are tracked anew from their next packet (a TCP flow mid-stream may be judged invalid)",
}

var gcBehindWords = verdict.Words{
	"gc.behind":     "the count read {before} as the census began but its dump listed {listed} live entries: {expired} had expired and waited for the garbage collector",
	"gc.fix":        "nothing to fix: the GC reaps them in its time, a dump or conntrack -F sooner",
	"gc.lazily":     "(the count drains lazily; arithmetic on it overstated the table)",
	"gc.not-reaped": "the count still read {after} after it",
	"gc.reaped":     "the dump reaped them: the count read {after} after it",
	"gc.unreaped":   "the last census counted {unreaped} entries its dump did not list: expired and not reaped, so the table frees at the garbage collector's pace, not its hold's (a dump reaps them: conntrack -L; a shorter hold does not help)",
}

var dyingWords = verdict.Words{
	"dying":         "{dying} of the {counted} entries counted are on the dying list (conntrack -L dying)",
	"dying.meaning": "ended and out of the table, still counted until a listener that asked for reliable delivery takes their DESTROY events; it is behind or stuck",
}

var clientStalledWords = verdict.Words{
	"client-stalled":         "{syn retransmits} SYN retransmits/s with CPU {CPU busy} and no local drops",
	"client-stalled.meaning": "connection attempts are lost beyond this host; clients wait 1, 2, 4, 8 s",
}

var cpuBoundWords = verdict.Words{
	"cpu-bound":                "CPU {CPU busy} busy (user {user}, system {system}, softirq {softirq})",
	"cpu-bound.alone":          "with no table drops: the work itself is the limit",
	"cpu-bound.while-dropping": "while the table drops: whose is not read, and clients on this host retrying what it drops spend CPU too; free the table first",
}

var diskBoundWords = verdict.Words{
	"disk-bound":         "disk busy {util}, iowait {iowait}, {disk IO/s} IO/s",
	"disk-bound.meaning": "storage is the limit",
}

var nearCapWords = verdict.Words{
	"near-cap": "peak {peak} of max {max} ({full})",
}

var okWords = verdict.Words{
	"ok.empty":      "nothing tracked in this namespace yet",
	"ok.netns":      "no namespace near its cap ({others} others, the fullest {netns} at {ns count})",
	"ok.netns-near": "{netns} near its cap ({ns count} / {cap})",
	"ok.netns-none": "no other namespace read",
	"ok.no-table":   "no conntrack table",
	"ok.table":      "count {count} of max {max} ({full})",
	"ok.untracked":  "this namespace untracked",
}

var sharedWords = verdict.Words{
	"evict.nothing":          "nothing to evict: {beyond} of the census's {census} entries are established TCP or assured UDP streams ({unreplied} unreplied), which neither early drop nor the garbage collector frees: " + raiseNotTimeWait,
	"evict.standing":         "nothing to evict: {open} entries stand open (established), which neither early drop nor the garbage collector frees: " + raiseNotTimeWait,
	"evict.gc":               "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: the garbage collector evicts those near the cap without counting them, only down to {evicts to} (max ÷ 100 × 95) and at its next run, and their hold (TIME_WAIT's most often) is what frees the table",
	"evict.gc.seen":          "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: the garbage collector evicts those near the cap without counting them ({evicted}/s evicted, seen in DESTROY events), only down to {evicts to} (max ÷ 100 × 95) and at its next run, and their hold (TIME_WAIT's most often) is what frees the table",
	"clash.resolved":         "{clash_resolve} clashes the kernel resolved (clash_resolve: harmless)",
	"clash.resolved.more":    "{clash_resolve} more clashes the kernel resolved (clash_resolve: harmless)",
	"arith.holds":            "{rate}/s × {hold} = {needs}",
	"arith.holds.before-pin": "{rate}/s before the pin × {hold} = {needs}",
	"arith.needs":            "{rate}/s × {hold} needs {needs}",
	"arith.needs.before-pin": "{rate}/s before the pin × {hold} needs {needs}",
	"ceiling":                "ceiling {ceiling} new/s ({max} ÷ {hold} {state} hold)",
	"ceiling.guessed":        "ceiling {ceiling} new/s if closing TCP fills it ({max} ÷ {hold} {state} hold; what fills it is not counted)",
	"ceiling.none":           "no ceiling (" + NoCeiling + ")",
	"fill":                   "{count} of {max} entries {class}",
	"fill.share":             "{count} of {max} entries: {share} {class}",
	"fill.guessed":           "{count} of {max} entries: ~{share} {class}",
	"fill.standing":          "{count} of {max} entries standing open ({class})",
	"fill.share.standing":    "{count} of {max} entries: {share} standing open ({class})",
	"fill.guessed.standing":  "{count} of {max} entries: ~{share} standing open ({class})",
	"server":                 "CPU {CPU busy}, disk {disk IO/s} IO/s",
	"server.idle":            "server idle (CPU {CPU busy}, disk {disk IO/s} IO/s)",
	"server.no-cpu":          "CPU not read, disk {disk IO/s} IO/s",
	"server.no-disk":         "CPU {CPU busy}, disk not read",
	"server.no-cpu.no-disk":  "CPU not read, disk not read",
	"arith.none":             "none new, held {hold} each",
	"arith.none-before":      "no rate counted before the pin, held {hold} each",
	"arith.standing":         "held while open",
	"arith.unknown-pinned":   "rate unknown while pinned, held {hold} each",
	"cpu":                    "CPU {CPU busy}",
	"cpu.unread":             "CPU not read",
	"demand":                 "demand {demand} new/s",
	"drops":                  "{drops} drops",
	"drops.none":             "no drops",
	"evict.gc-none":          "early_drop stays 0 though {closing} of the census's {census} entries are closing TCP: under a cap of 100 the garbage collector evicts nothing (max ÷ 100 × 95 is 0), so their hold (TIME_WAIT's most often) alone frees the table",
}

// raiseNotTimeWait is the fix of a table that nothing can be evicted
// from, which rules the TIME_WAIT hold out.
const raiseNotTimeWait = "raise nf_conntrack_max or lower the established timeout, not the TIME_WAIT hold"

// words are every template a rule here says, merged from the kinds'
// rows and sharedWords once the table is built.
var words verdict.Words

// say is words' clause key of weight w, filled by facts.
func say(w verdict.Weight, key string, facts ...verdict.Fact) verdict.Clause {
	return words.Say(w, key, facts...)
}
