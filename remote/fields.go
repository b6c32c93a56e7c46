package remote

// recordField is one key of a record line.
type recordField struct {
	// Key is the JSON key; In says which records carry it ("sample",
	// "event" or "both"); Doc is what it holds.
	Key, In, Doc string
}

// recordFields is the one description of a record's fields. The
// encoder's JSON tags (record, wireSample, wireEvent), the scanner's keys
// (lineDecoder.scan takes each key's bit from here) and the format
// document FORMAT.md (written from this table by TestFormatDocument) are
// checked against it: a field added to one and not the others fails
// TestRecordFieldsAgree.
var recordFields = []recordField{
	{"k", "both", `the record's kind: "s" a sample, "e" an event; readers skip kinds they do not know`},
	{"t", "sample", "the sample's time, unix milliseconds"},
	{"iv", "sample", "the sampling interval, milliseconds"},
	{"ct", "sample", `the table: status "s", count "n", peak "pk", max "max", buckets "b", TIME_WAIT hold "tw", "h" the hold of each class in seconds [tcp-closed, tcp-unanswered, tcp-open, udp, udp-stream, icmp, other] (0: not read)`},
	{"cs", "sample", `per-CPU conntrack counters: source "src", "note", "rep" a bit mask of the counters the kernel reports in the order drop, early_drop, insert_failed, invalid, error, search_restart, clash_resolve, chaintoolong (bit 0 = drop), "cpu" rows [cpu, v0..v7] in that order`},
	{"cpu", "sample", "CPU time rows [cpu, user, nice, system, idle, iowait, irq, softirq, steal] in hundredths of a second"},
	{"disk", "sample", "disk rows [name, reads, writes, busy_ms]"},
	{"tcp", "sample", "[syn_retrans, listen_overflows, listen_drops, active_opens, passive_opens, out_rsts, time_wait, established, port_low, port_high]"},
	{"klog", "sample", `the kernel log: readable "r", "note", "lines" [[unix ms, text, netns, netns name]], suppressed "sup"`},
	{"en", "sample", `new entries where the kernel makes them: source "src" ("events" when counted), "note" why not, epoch "ep" (a new subscription restarts the counters), "n" NEW events [tcp, udp, icmp, other], "e" DESTROY events by class in the order of "h", "v" those of them the kernel ended with time left (evicted; absent from an older agent), lost events "l", the interval's top destinations "td" and sources "ts" as [[key, n]] (at most 8 each); a stream without "en" is older than the classes, which are then unknown`},
	{"notes", "sample", "notes on what could not be read, as strings"},
	{"cen", "sample", "a table census when one finished: the JSON of model.Census, as `tablefull census --json` prints it"},
	{"ns", "sample", "the host's other network namespaces, when read: the JSON of model.Namespaces"},
	{"dr", "sample", "the drift of persisted tuning, when checked: the JSON of model.Drifts"},
	{"ab", "sample", `the parts not read (model.Parts, e.g. ["cpu","tcp"]); a stream without it read every part its rows carry`},
	{"ls", "sample", "the pressed listeners, when read: the JSON of model.Listeners"},
	{"who", "sample", "what the kernel probes counted, when loaded: the JSON of model.Who"},
	{"al", "sample", "the cloud NICs' own connection tracking (ENA), when any keeps it: the JSON of []model.Allowance"},
	{"cil", "sample", "Cilium's conntrack and SNAT maps, where Cilium runs: the JSON of model.CiliumMaps"},
	{"ipv", "sample", `IPVS, read at most every 30 s: the JSON of model.IPVS ({"present":false} where ip_vs is not loaded)`},
	{"fl", "sample", `the entries user space deleted at once, where kube-proxy runs and a live feed watches: the JSON of model.Flushes (its "recent" bursts at most 4, each with at most 3 destinations)`},
	{"nat", "sample", "the ruleset's source NAT, when read (entries failed to insert): the JSON of model.NAT"},
	{"pt", "sample", "the local ports connect() took by destination, when the TCP sockets come near the port range: the JSON of model.PortUse"},
	{"type", "event", `the event's type: "episode" (a pinned period began or ended), "apply" and "undo" (a tuning change and its read-back), "delete" (a deletion of entries: its text the filter and what it did), "error" (the agent could not read something), "caption" (a recording's commentary), and the control replies`},
	{"text", "event", "the event's text (for apply, undo and replies: JSON)"},
	{"et", "event", "the event's time, unix milliseconds"},
}

// fieldBits gives each key of recordFields its bit, by its place there:
// the scanner refuses a key twice in one line by these bits.
var fieldBits = func() map[string]uint32 {
	m := make(map[string]uint32, len(recordFields))
	for i, f := range recordFields {
		m[f.Key] = 1 << i
	}
	return m
}()
