package model

// Knob keys tablefull can tune: declared once, here, for every room
// (the stream's drift, the exporter, the tuners); their specs are
// model/tuning's.
const (
	KnobMax        = "net.netfilter.nf_conntrack_max"
	KnobTimeWait   = "net.netfilter.nf_conntrack_tcp_timeout_time_wait"
	KnobSynSent    = "net.netfilter.nf_conntrack_tcp_timeout_syn_sent"
	KnobSynRecv    = "net.netfilter.nf_conntrack_tcp_timeout_syn_recv"
	KnobLastAck    = "net.netfilter.nf_conntrack_tcp_timeout_last_ack"
	KnobUDPTimeout = "net.netfilter.nf_conntrack_udp_timeout"
	KnobUDPStream  = "net.netfilter.nf_conntrack_udp_timeout_stream"
	KnobHashsize   = "nf_conntrack.hashsize" // module parameter, through sysfs
	KnobSomaxconn  = "net.core.somaxconn"
	KnobSynBacklog = "net.ipv4.tcp_max_syn_backlog"
	KnobPortRange  = "net.ipv4.ip_local_port_range"
	KnobTwReuse    = "net.ipv4.tcp_tw_reuse"
)

// knobNames are the knobs' names on every surface: the sysctl's own
// name without its directory, the module parameter's.
var knobNames = map[string]string{
	KnobMax: "nf_conntrack_max", KnobTimeWait: "nf_conntrack_tcp_timeout_time_wait", KnobSynSent: "nf_conntrack_tcp_timeout_syn_sent",
	KnobSynRecv:    "nf_conntrack_tcp_timeout_syn_recv",
	KnobLastAck:    "nf_conntrack_tcp_timeout_last_ack",
	KnobUDPTimeout: "nf_conntrack_udp_timeout", KnobUDPStream: "nf_conntrack_udp_timeout_stream", KnobHashsize: "hashsize",
	KnobSomaxconn: "somaxconn", KnobSynBacklog: "tcp_max_syn_backlog", KnobPortRange: "ip_local_port_range", KnobTwReuse: "tcp_tw_reuse",
}

// KnobName is how every surface names a knob: its one display name, or
// the key itself (sanitised) for one tablefull does not tune.
func KnobName(key string) string {
	if n, ok := knobNames[key]; ok {
		return n
	}
	return Sanitize(key, 80)
}

// KnobResult is one knob after an apply: what was asked and what the
// kernel reads back.
type KnobResult struct {
	Key      string `json:"key"`
	Before   string `json:"before"`
	Wanted   string `json:"wanted"`
	After    string `json:"after"`
	Verified bool   `json:"verified"`
}
