// Package metrics is the one home of the exporter's metrics: each
// family's name, help and labels (Metric, All), which the exporter
// describes, the Prometheus reader queries and the rules' tests check.
package metrics

import (
	"strings"

	"github.com/tablefull/tablefull/model/diagnose"
)

// Metric is one family of the exporter's series: its name, what it
// holds and its labels. The exporter describes it from here, the
// Prometheus reader queries it by Name, and the rules' tests check the
// rules name only these.
type Metric struct {
	Name, Help string
	Labels     []string
}

// The table: its count, cap, buckets and holds, and its time at the cap.
var (
	Entries   = Metric{Name: "tablefull_conntrack_entries", Help: "Entries in the conntrack table at the last sample (nf_conntrack_count)."}
	Peak      = Metric{Name: "tablefull_conntrack_entries_peak", Help: "Highest entry count seen by the fast sampling in the trailing window (--window, default 1m): a burst between two scrapes is not lost, and every scraper reads the same."}
	Limit     = Metric{Name: "tablefull_conntrack_entries_limit", Help: "The table's cap (nf_conntrack_max)."}
	Buckets   = Metric{Name: "tablefull_conntrack_buckets", Help: "Hash buckets (nf_conntrack_buckets)."}
	Hold      = Metric{Name: "tablefull_conntrack_time_wait_hold_seconds", Help: "How long a TIME_WAIT entry is held (nf_conntrack_tcp_timeout_time_wait)."}
	ClassHold = Metric{Name: "tablefull_conntrack_class_hold_seconds", Help: "How long the kernel holds an entry of the class now (its nf_conntrack_*_timeout); absent when not read.", Labels: []string{"class"}}
	Pinned    = Metric{Name: "tablefull_conntrack_pinned_seconds_total", Help: "Seconds the table spent at its cap (the peak of an interval reached nf_conntrack_max) since the exporter started."}
	Episodes  = Metric{Name: "tablefull_conntrack_pinned_episodes_total", Help: "Pinned episodes begun since the exporter started."}
)

// The kernel's per-CPU counters.
var (
	CPUEvents = Metric{Name: "tablefull_conntrack_cpu_events_total", Help: "Per-CPU conntrack counter, by name as conntrack -S prints it (read by header name from /proc/net/stat/nf_conntrack, or over ctnetlink). Served only with --per-cpu-series: a series per CPU and counter the kernel reports (up to 8 a CPU, about 3,000 on a 384-CPU host); tablefull_conntrack_events_total is the same summed.", Labels: []string{"cpu", "counter"}}
	Events    = Metric{Name: "tablefull_conntrack_events_total", Help: "A conntrack counter summed over all CPUs.", Labels: []string{"counter"}}
)

// The kernel log's "table full" lines.
var (
	KernelLines = Metric{Name: "tablefull_kernel_table_full_lines_total", Help: "Kernel log lines \"nf_conntrack: table full, dropping packet\" seen since the exporter started."}
	Suppressed  = Metric{Name: "tablefull_kernel_suppressed_callbacks_total", Help: "Kernel log callbacks suppressed by its rate limit (\"N callbacks suppressed\") since the exporter started."}
)

// Entries as they are made, ended and deleted.
var (
	NewEntries     = Metric{Name: "tablefull_conntrack_new_entries_total", Help: "New conntrack entries by class (tcp-closed, tcp-last-ack, tcp-reset, tcp-unanswered, tcp-half-open, tcp-open, udp, udp-stream, icmp, other), counted from ctnetlink NEW and DESTROY events while the table is near its cap (needs CAP_NET_ADMIN); absent while not counted.", Labels: []string{"class"}}
	NewEntriesLost = Metric{Name: "tablefull_conntrack_new_entries_lost_total", Help: "ctnetlink events the kernel could not deliver to the exporter (its socket overran): the new-entry counts are then lower bounds."}
	Evicted        = Metric{Name: "tablefull_conntrack_evicted_entries_total", Help: "Conntrack entries the kernel ended with time left on their timeout, by class: near the cap, the garbage collector's evictions (which no per-CPU counter counts) and the packet path's early drops; counted from DESTROY events while the table is near its cap; absent while not counted.", Labels: []string{"class"}}
	EntriesDeleted = Metric{Name: "tablefull_entries_deleted_total", Help: "Entries deleted through tablefull (tablefull entries --delete, the console's D), from the journal in the state directory; absent where that directory cannot be read."}
	UserDeleted    = Metric{Name: "tablefull_conntrack_user_deleted_entries_total", Help: "Conntrack entries user space deleted (kube-proxy's cleanup of a gone endpoint, a kube-proxy restart, conntrack -D and -F: DESTROY events that carry a deleter) since the flush watch began; the watch runs where kube-proxy runs, and the series is absent elsewhere. Bursts of 100 a second or more are ENTRIES FLUSHED."}
)

// IPVS's own connection table.
var (
	IPVSConns   = Metric{Name: "tablefull_ipvs_connections", Help: "Connections IPVS holds for its services (kube-proxy's IPVS mode), each real server's active and inactive ones summed, read at most every 30 s; absent where ip_vs is not loaded."}
	IPVSBuckets = Metric{Name: "tablefull_ipvs_connection_table_buckets", Help: "Buckets of IPVS's connection table (2^ip_vs_conn_tab_bits): more connections than that make long chains, never refusals; absent where ip_vs is not loaded."}
)

// The verdicts, by the console's own rules.
var (
	Verdict        = Metric{Name: "tablefull_verdict", Help: "1 when the verdict held at any sample in the trailing window (--window, default 1m; every scraper reads the same), by the console's own rules and thresholds, else 0 (kind: " + verdictKindLabels() + ").", Labels: []string{"kind"}}
	VerdictWorst   = Metric{Name: "tablefull_verdict_worst", Help: "1, labelled with the most severe verdict that held in the trailing window (--window; severity as the console orders kinds), or ok when none held: one series a host, which a fleet's engine counts and ranks without reading every kind's tablefull_verdict series. Absent when the table could not be read.", Labels: []string{"kind"}}
	FleetScore     = Metric{Name: "tablefull_fleet_score", Help: "The host's place in the fleet's order, higher first, as one integer: 10^12 × the severity of tablefull_verdict_worst's kind (1000 less its place in the console's order of kinds), plus 100 × its drops per second over the window in hundredths (drop and early_drop, at most 10^6/s), plus its count's whole percent of the cap (at most 99). A fleet's engine ranks it with topk, one series a host. Absent when the table or its drop counters could not be read."}
	VerdictSeconds = Metric{Name: "tablefull_verdict_seconds_total", Help: "Seconds each verdict held since the exporter started (by the console's own rules): increase() over any range sees what held, whoever else scrapes.", Labels: []string{"kind"}}
)

// The host's other network namespaces.
var (
	NSEntries       = Metric{Name: "tablefull_netns_conntrack_entries", Help: "Entries in another network namespace's conntrack table (the cap is the host's tablefull_conntrack_entries_limit), for the 20 fullest; the rest are in tablefull_netns_others.", Labels: []string{"netns", "kind", "inode"}}
	NSDrops         = Metric{Name: "tablefull_netns_conntrack_drops_total", Help: "Packets another network namespace's table dropped for being full (drop less what insert_failed accounts for; early_drop lets the packet in), summed over CPUs, for the 20 fullest; read once its table is half full (absent before).", Labels: []string{"netns", "kind", "inode"}}
	NSInsertDrops   = Metric{Name: "tablefull_netns_conntrack_insert_drops_total", Help: "Packets another network namespace's table dropped on inserting their entry (insert_failed: a clash, or a NAT that found no free tuple), not for being full; summed over CPUs, for the 20 fullest, read as the drops are.", Labels: []string{"netns", "kind", "inode"}}
	NSOthers        = Metric{Name: "tablefull_netns_others", Help: "Network namespaces read beyond the 20 with series of their own."}
	NSOthersEntries = Metric{Name: "tablefull_netns_others_entries", Help: "Entries in the namespaces beyond the 20, together."}
	NSUnread        = Metric{Name: "tablefull_netns_unread", Help: "Network namespaces not read at all: over the cap of 4,096 kept between walks (those users made in their own user namespaces are left out first). Absent when the namespaces were not read."}
)

// Who holds the table: the probes' owners and the census's.
var (
	ProbesLost   = Metric{Name: "tablefull_owner_probes_lost_total", Help: "Connections and refused packets the eBPF probes could not count since the exporter started, their maps being full (one user's flows can fill them): the owners' series are then lower bounds. Absent until the probes have been loaded once."}
	OwnerNew     = Metric{Name: "tablefull_owner_new_connections_total", Help: "New TCP connections an owner opened to a peer, counted by the eBPF probes as they were made, since the exporter started (use rate()): the busiest 10 of each interval are counted, at most 50 label sets kept (the one longest without a new count goes first, and one quiet for 15 min). Exported while the probes count (they are loaded near the cap; absent otherwise or where eBPF is refused): where they do not, nothing is known.", Labels: []string{"comm", "cgroup", "pod", "netns", "peer"}}
	OwnerDrops   = Metric{Name: "tablefull_owner_drops_total", Help: "Packets the conntrack table refused (no entry could be made) from an owner's sockets, by the eBPF probes, since the exporter started (use rate()), for the 10 most of each interval, at most 50 label sets kept as for tablefull_owner_new_connections_total; cgroup and pod empty for packets with no local socket (forwarded, or from a peer). A firewall's own DROP is not counted. Exported while the probes count.", Labels: []string{"cgroup", "pod", "netns"}}
	OwnerEntries = Metric{Name: "tablefull_conntrack_owner_entries", Help: "Entries of the conntrack table held by one owner, by the newest census (taken while the table is near its cap, at most a minute old): the 10 owners holding most, by process name, cgroup (the systemd unit, container id or cgroup), pod UID and network namespace (another namespace of the host named by its bind mount or inode; empty when none); role is opened (the connections it opens), accepted (those it took in as a server), served (UDP requests it answered whose senders' sockets are gone: its clients make them, a resolver's lookups to a DNS server) or forwarded (another namespace of the host opened them, through this one: a pod's on its node). Absent when no fresh census attributed them.", Labels: []string{"comm", "cgroup", "pod", "netns", "role"}}
)

// Pressed listeners.
var (
	ListenQueue   = Metric{Name: "tablefull_listener_queue", Help: "Connections waiting in a pressed listener's accept queue (at least 80 % of its backlog), read when listen queues overflowed, for the 5 fullest; absent for the others and when none is pressed.", Labels: []string{"listen", "comm"}}
	ListenBacklog = Metric{Name: "tablefull_listener_backlog", Help: "The backlog of a pressed listener (what it asked listen(2) for, capped by net.core.somaxconn), beside tablefull_listener_queue.", Labels: []string{"listen", "comm"}}
)

// The moment's plan: what tablefull tune --dry-run proposes over the
// press under way (the frames of the exporter's window before it), each
// knob's value now and proposed, the table's memory at its cap now and as
// planned, and the share of the table each class held. Absent when
// nothing is proposed (no press, or a fix that is no knob's).
var (
	PlanKnob       = Metric{Name: "tablefull_plan_knob_value", Help: "A knob the moment's plan proposes (tablefull tune --dry-run's, over the press under way): its value now (value=current) and the one proposed (value=proposed); absent when the plan proposes nothing, and for a knob of more than one number (ip_local_port_range). At most one pair a knob tablefull tunes.", Labels: []string{"knob", "value"}}
	PlanMemory     = Metric{Name: "tablefull_plan_memory_bytes", Help: "The memory the table takes at its cap (entries × bytes an entry + buckets × 8 B) now (value=current) and as the plan leaves it (value=proposed), beside tablefull_plan_knob_value; absent when the plan proposes nothing.", Labels: []string{"value"}}
	PlanClassShare = Metric{Name: "tablefull_plan_class_share", Help: "The share of the table (0..1) each class held at the plan's moment (class as in tablefull_conntrack_new_entries_total), counted by a census or by rate × hold, beside tablefull_plan_knob_value; absent when the plan proposes nothing or nothing was known of the classes.", Labels: []string{"class"}}
)

// The exporter itself: what it read, when, and what drifted.
var (
	Up          = Metric{Name: "tablefull_up", Help: "1 when this part of the host's numbers could be read: conntrack (the table), ctstats (per-CPU counters), cpu, disks and tcp (/proc/stat, diskstats, netstat), kernel_log (/dev/kmsg, with CAP_SYSLOG), namespaces (the host's other network namespaces: 0 when other users' processes could not be read, without CAP_SYS_PTRACE), entries (new entries by class: counted near the cap only, so absent far from it, 0 only when counting failed), stream (samples arriving).", Labels: []string{"part"}}
	LastSample  = Metric{Name: "tablefull_last_sample_timestamp_seconds", Help: "When the newest sample was taken (Unix time)."}
	TuningDrift = Metric{Name: "tablefull_tuning_drift", Help: "1 when a knob tablefull persisted (tune --persist) reads live other than its persisted value: it did not apply at boot (the module loaded late?), or something wrote it since; 0 while it holds; absent for a knob not persisted or not readable.", Labels: []string{"knob"}}
	BuildInfo   = Metric{Name: "tablefull_build_info", Help: "tablefull's version, the commit it was built from, the Go version and platform; always 1.", Labels: []string{"version", "revision", "goversion", "goos", "goarch"}}
)

// All is every metric the exporter serves, in the order of its
// exposition's descriptions.
var All = []Metric{Entries, Peak, Limit, Buckets, Hold, CPUEvents, Events, Pinned, Episodes, KernelLines, Suppressed, NewEntries, NewEntriesLost, Evicted, EntriesDeleted, UserDeleted, IPVSConns, IPVSBuckets, ClassHold, Verdict, VerdictWorst, FleetScore, VerdictSeconds, Up, NSEntries, NSDrops, NSInsertDrops, NSOthers, NSOthersEntries, NSUnread, TuningDrift, LastSample, BuildInfo, ProbesLost, OwnerNew, OwnerDrops, OwnerEntries, ListenQueue, ListenBacklog, PlanKnob, PlanMemory, PlanClassShare}

// verdictKindLabels are the kinds a tablefull_verdict series exists for,
// as its label reads them.
func verdictKindLabels() string {
	kinds := diagnose.ProblemKinds()
	l := make([]string, len(kinds))
	for i, k := range kinds {
		l[i] = k.Label()
	}
	return strings.Join(l, ", ")
}

// AnyOf is a PromQL regular expression matching exactly the names given.
func AnyOf(names ...string) string { return strings.Join(names, "|") }
