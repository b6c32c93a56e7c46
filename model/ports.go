package model

// PortUse is the local ports connect() took, by destination: the 4-tuple
// must be unique, so the ports of ip_local_port_range run out towards one
// destination from one source address, not host-wide; an accepted
// connection takes none.
type PortUse struct {
	// Dests are the destinations holding the most local ports, most
	// first, at most MaxPortDests.
	Dests []DestPorts `json:"dests,omitempty"`
	// Outbound counts the sockets that hold a port of the range (not a
	// listener's port); Inbound the others, never counted as port use.
	Outbound int `json:"outbound"`
	Inbound  int `json:"inbound"`
	// Approximate is set when more destinations were seen than could be
	// counted exactly: the counts are lower bounds.
	Approximate bool `json:"approximate,omitempty"`
}

// DestPorts is one destination's share of the local ports: the sockets
// this host opened to Dst from Src, in any state but listening (a
// TIME_WAIT socket keeps its port until it ends).
type DestPorts struct {
	Src      string `json:"src"`
	Dst      string `json:"dst"`
	Ports    int    `json:"ports"`
	TimeWait int    `json:"time_wait,omitempty"`
}

// MaxPortDests bounds the destinations a sample carries.
const MaxPortDests = 8

// PortsWorthReading reports whether the host's TCP sockets come near its
// port range (half of it), so that the ports by destination are worth a
// socket dump: below that no destination can hold 90 % of the range.
// inUse is every TCP socket but TIME_WAIT (sockstat's inuse, which counts
// connects still in SYN_SENT, unlike the established count); the totals
// count inbound connections too, so they only gate the read, and the
// verdict is the dump's.
func PortsWorthReading(t TCP, inUse uint64) bool {
	lo, hi := t.PortRange[0], t.PortRange[1]
	if hi <= lo {
		return false
	}
	return 2*(t.TimeWait+inUse) >= hi-lo+1
}
