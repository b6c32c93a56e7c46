package stream

import (
	"reflect"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
)

// field is one key of a record line.
type field struct {
	// Key is the JSON key; In says which records carry it ("sample",
	// "event" or "both"); Doc is what it holds.
	Key, In, Doc string
	// part, for a key that carries a field of model.Sample as the model's
	// own JSON, is how it is written, read and bounded; nil for the keys
	// wire.go packs into rows.
	part *part
}

// part is a field of model.Sample carried as its model's JSON: the
// encoder writes it, both decoders read it into a sample and fromWire
// bounds it, each through this one entry.
type part struct {
	// at is the sample's field, as a pointer to decode into or encode.
	at func(*model.Sample) any
	// present says whether the sample has it (a zero field is left out).
	present func(*model.Sample) bool
	// keep bounds the field as a stream sent it, or refuses the sample
	// (ErrTooBig).
	keep func(*model.Sample) error
}

// sampleField is the vocabulary's entry for a field of model.Sample the
// stream carries as its model's JSON: at gives the field, keep what of a
// stream's value is kept (within the limits, or ErrTooBig).
func sampleField[T any](key, doc string, at func(*model.Sample) *T, keep func(T) (T, error)) field {
	return field{Key: key, In: "sample", Doc: doc, part: &part{
		at:      func(s *model.Sample) any { return at(s) },
		present: func(s *model.Sample) bool { return !reflect.ValueOf(at(s)).Elem().IsZero() },
		keep: func(s *model.Sample) error {
			v, err := keep(*at(s))
			*at(s) = v
			return err
		},
	}}
}

// within is keep for a field whose every value is kept, bounded.
func within[T any](bound func(T) T) func(T) (T, error) {
	return func(v T) (T, error) { return bound(v), nil }
}

// vocabulary is the stream's one vocabulary: every key of a record line,
// what it holds and, for a sample's fields carried as their model's JSON,
// how each is written, read and bounded. A new field of model.Sample is
// one sampleField row here. The rows' keys (wireSample's JSON tags), the
// scanner's (lineDecoder.field) and the format document FORMAT.md
// (written from this table by TestFormatDocument) are checked against it:
// a key added to one and not the others fails TestRecordFieldsAgree.
var vocabulary = []field{
	{Key: "k", In: "both", Doc: `the record's kind: "s" a sample, "e" an event; readers skip kinds they do not know`},
	{Key: "t", In: "sample", Doc: "the sample's time, unix milliseconds"},
	{Key: "iv", In: "sample", Doc: "the sampling interval, milliseconds"},
	{Key: "ct", In: "sample", Doc: `the table: status "s", count "n", peak "pk", max "max", buckets "b", TIME_WAIT hold "tw", "h" the hold of each class in seconds [tcp-closed, tcp-unanswered, tcp-open, udp, udp-stream, icmp, other, tcp-reset, tcp-half-open, tcp-last-ack; a stream written before the last three has 7 to 9] (0: not read)`},
	{Key: "cs", In: "sample", Doc: `per-CPU conntrack counters: source "src", "note", "rep" a bit mask of the counters the kernel reports in the order drop, early_drop, insert_failed, invalid, error, search_restart, clash_resolve, chaintoolong (bit 0 = drop), "cpu" rows [cpu, v0..v7] in that order`},
	{Key: "cpu", In: "sample", Doc: "CPU time rows [cpu, user, nice, system, idle, iowait, irq, softirq, steal] in hundredths of a second"},
	{Key: "disk", In: "sample", Doc: "disk rows [name, reads, writes, busy_ms]"},
	{Key: "tcp", In: "sample", Doc: "[syn_retrans, listen_overflows, listen_drops, active_opens, passive_opens, out_rsts, time_wait, established, port_low, port_high]"},
	{Key: "klog", In: "sample", Doc: `the kernel log: readable "r", "note", "lines" [[unix ms, text, netns, netns name]], suppressed "sup"`},
	{Key: "en", In: "sample", Doc: `new entries where the kernel makes them: source "src" ("events" when counted), "note" why not, epoch "ep" (a new subscription restarts the counters), "n" NEW events [tcp, udp, icmp, other], "e" DESTROY events by class in the order of "h", "v" those of them the kernel ended with time left (evicted; absent, not known, from an older agent or a kernel before 5.11, whose DESTROY events carry no time left), lost events "l", the interval's top destinations "td" and sources "ts" as [[key, n]] (at most 8 each); a stream without "en" is older than the classes, which are then unknown`},
	{Key: "notes", In: "sample", Doc: "notes on what could not be read, as strings"},
	sampleField("cen", "a table census when one finished: the JSON of model.Census, as `tablefull census --json` prints it",
		func(s *model.Sample) **model.Census { return &s.Census }, keepCensus),
	sampleField("ns", "the host's other network namespaces, when read: the JSON of model.Namespaces",
		func(s *model.Sample) **model.Namespaces { return &s.Namespaces }, within(boundNamespaces)),
	sampleField("dr", "the drift of persisted tuning, when checked: the JSON of model.Drifts",
		func(s *model.Sample) **knob.Drifts { return &s.Drift }, within(boundDrift)),
	{Key: "ab", In: "sample", Doc: `the parts not read (model.Parts, e.g. ["cpu","tcp"]); a stream without it read every part its rows carry`},
	sampleField("ls", "the pressed listeners, when read: the JSON of model.Listeners",
		func(s *model.Sample) **model.Listeners { return &s.Listeners }, keepListeners),
	sampleField("who", "what the kernel probes counted, when loaded: the JSON of model.Who",
		func(s *model.Sample) **model.Who { return &s.Who }, keepWho),
	sampleField("al", "the cloud NICs' own connection tracking (ENA), when any keeps it: the JSON of []model.Allowance",
		func(s *model.Sample) *[]model.Allowance { return &s.Allowance }, within(boundAllowance)),
	sampleField("cil", "Cilium's conntrack and SNAT maps, where Cilium runs: the JSON of model.CiliumMaps",
		func(s *model.Sample) **model.CiliumMaps { return &s.Cilium }, within(boundCilium)),
	sampleField("ipv", `IPVS, read at most every 30 s: the JSON of model.IPVS ({"present":false} where ip_vs is not loaded)`,
		func(s *model.Sample) **model.IPVS { return &s.IPVS }, within(boundIPVS)),
	sampleField("fl", `the entries user space deleted at once, where kube-proxy runs and a live feed watches: the JSON of model.Flushes (its "recent" bursts at most 4, each with at most 3 destinations)`,
		func(s *model.Sample) **model.Flushes { return &s.Flushes }, within(boundFlushes)),
	sampleField("nat", "the ruleset's source NAT, when read (entries failed to insert): the JSON of model.NAT",
		func(s *model.Sample) **model.NAT { return &s.NAT }, within(boundNAT)),
	sampleField("pt", "the local ports connect() took by destination, when the TCP sockets come near the port range: the JSON of model.PortUse",
		func(s *model.Sample) **model.PortUse { return &s.Ports }, within(boundPorts)),
	{Key: "type", In: "event", Doc: `the event's type: "episode" (a pinned period began or ended), "apply" and "undo" (a tuning change and its read-back), "delete" (a deletion of entries: its text the filter and what it did), "error" (the agent could not read something), "caption" (a recording's commentary), and the control replies`},
	{Key: "text", In: "event", Doc: "the event's text (for apply, undo and replies: JSON)"},
	{Key: "et", In: "event", Doc: "the event's time, unix milliseconds"},
}

// partOf is the part a key carries; nil for a row key or an unknown one.
func partOf(key []byte) *part {
	for i := range vocabulary {
		if vocabulary[i].Key == string(key) {
			return vocabulary[i].part
		}
	}
	return nil
}
