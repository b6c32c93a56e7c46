package model

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
)

// IPVS is the kernel's IP Virtual Server, where it is loaded: kube-proxy's
// IPVS mode keeps its Services there, with a connection table of its own
// beside nf_conntrack's. nil in a sample: not read (far from any need, or
// a recording from before it was); Present false: the module is not
// loaded here, said as "not present", never as an empty table.
type IPVS struct {
	Present bool `json:"present"`
	// Size is the connection table's buckets (2^ip_vs_conn_tab_bits):
	// a table of more connections than that has long chains, it does
	// not refuse them.
	Size uint64 `json:"size,omitempty"`
	// Conns is the connections the table holds for the services, each
	// real server's active and inactive ones summed; Services their
	// number; Top the services holding most ("TCP 10.96.0.10:443").
	Conns    uint64        `json:"conns,omitempty"`
	Services int           `json:"services,omitempty"`
	Top      []tally.Count `json:"top,omitempty"`
	// ReuseMode is net.ipv4.vs.conn_reuse_mode ("": not read).
	ReuseMode string `json:"reuse_mode,omitempty"`
	// Rows are the first connections of the table as the kernel lists
	// them (at most MaxIPVSRows): its own rows, the way conntrack -L
	// shows nf_conntrack's.
	Rows []IPVSConn `json:"rows,omitempty"`
	// Note says what was not read.
	Note string `json:"note,omitempty"`
}

// Bounds of what a sample carries of IPVS.
const (
	MaxIPVSRows = 8
	MaxIPVSTop  = 4
)

// IPVSConn is one connection of IPVS's table: the client, the service
// it asked for, the real server IPVS sent it to, its state and the
// seconds it has left.
type IPVSConn struct {
	Proto   string `json:"proto"`
	From    string `json:"from"`
	To      string `json:"to"`
	Dest    string `json:"dest"`
	State   string `json:"state"`
	Expires int    `json:"expires"`
}

// Text says IPVS in a line: "not present", or its connections against
// its table, its busiest services and conn_reuse_mode's trap where the
// kernel has it.
func (v *IPVS) Text(kernel string) string {
	if v == nil {
		return "not read"
	}
	if !v.Present {
		return "not present (ip_vs not loaded)"
	}
	services := fmt.Sprintf("%d services", v.Services)
	if v.Services == 1 {
		services = "1 service"
	}
	s := fmt.Sprintf("%s connections in a table of %s buckets, %s", units.Int(v.Conns), units.Int(v.Size), services)
	if len(v.Top) > 0 {
		var parts []string
		for _, c := range v.Top {
			parts = append(parts, fmt.Sprintf("%s %s", safe.Text(c.Key, 60), units.Int(uint64(max(0, c.N)))))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if v.ReuseMode != "" {
		s += "; conn_reuse_mode " + safe.Text(v.ReuseMode, 4)
		if v.ReuseMode == "1" && kernelBefore(kernel, 5, 9) {
			s += ": on this kernel a client reusing a port of a closed connection waits 1 s for its SYN to be resent (kube-proxy sets 0 here)"
		}
	}
	return s
}

// kernelBefore reports whether a kernel release ("5.4.0-150-generic")
// is older than major.minor; false when it does not read as one.
func kernelBefore(release string, major, minor int) bool {
	var a, b int
	if n, _ := fmt.Sscanf(release, "%d.%d", &a, &b); n != 2 {
		return false
	}
	return a < major || a == major && b < minor
}
