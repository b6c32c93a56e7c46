package knob

import "github.com/tablefull/tablefull/model/safe"

// The knobs tablefull can tune, by key: declared once, here, for every room
// (the stream's drift, the exporter, the tuners); their specs are
// model/tuning.s.
const (
	Max        = "net.netfilter.nf_conntrack_max"
	TimeWait   = "net.netfilter.nf_conntrack_tcp_timeout_time_wait"
	SynSent    = "net.netfilter.nf_conntrack_tcp_timeout_syn_sent"
	SynRecv    = "net.netfilter.nf_conntrack_tcp_timeout_syn_recv"
	LastAck    = "net.netfilter.nf_conntrack_tcp_timeout_last_ack"
	UDPTimeout = "net.netfilter.nf_conntrack_udp_timeout"
	UDPStream  = "net.netfilter.nf_conntrack_udp_timeout_stream"
	Hashsize   = "nf_conntrack.hashsize" // module parameter, through sysfs
	Somaxconn  = "net.core.somaxconn"
	SynBacklog = "net.ipv4.tcp_max_syn_backlog"
	PortRange  = "net.ipv4.ip_local_port_range"
	TwReuse    = "net.ipv4.tcp_tw_reuse"
)

// knobNames are the knobs' names on every surface: the sysctl's own
// name without its directory, the module parameter's.
var knobNames = map[string]string{
	Max: "nf_conntrack_max", TimeWait: "nf_conntrack_tcp_timeout_time_wait", SynSent: "nf_conntrack_tcp_timeout_syn_sent",
	SynRecv:    "nf_conntrack_tcp_timeout_syn_recv",
	LastAck:    "nf_conntrack_tcp_timeout_last_ack",
	UDPTimeout: "nf_conntrack_udp_timeout", UDPStream: "nf_conntrack_udp_timeout_stream", Hashsize: "hashsize",
	Somaxconn: "somaxconn", SynBacklog: "tcp_max_syn_backlog", PortRange: "ip_local_port_range", TwReuse: "tcp_tw_reuse",
}

// Name is how every surface names a knob: its one display name, or
// the key itself (sanitised) for one tablefull does not tune.
func Name(key string) string {
	if n, ok := knobNames[key]; ok {
		return n
	}
	return safe.Text(key, 80)
}

// Result is one knob after an apply: what was asked and what the
// kernel reads back.
type Result struct {
	Key      string `json:"key"`
	Before   string `json:"before"`
	Wanted   string `json:"wanted"`
	After    string `json:"after"`
	Verified bool   `json:"verified"`
}
