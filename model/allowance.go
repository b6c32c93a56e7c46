package model

// Allowance is a cloud NIC's own connection tracking, beside the
// kernel's: ENA counts the packets it refused because the instance
// tracks more connections than its type allows
// (conntrack_allowance_exceeded), whatever nf_conntrack says, and how
// many more it may track (conntrack_allowance_available).
type Allowance struct {
	Iface  string `json:"iface"`
	Driver string `json:"driver"`
	// Exceeded is the NIC's count of refused packets (cumulative).
	Exceeded uint64 `json:"exceeded"`
	// Available is how many more connections it may track, when
	// AvailableRead (newer drivers keep it).
	Available     uint64 `json:"available,omitempty"`
	AvailableRead bool   `json:"available_read,omitempty"`
}

// MaxAllowances bounds the NICs a sample carries.
const MaxAllowances = 8

// allowanceDelta is how many packets the NICs refused between two
// samples, and the NIC that refused most (matched by name: a NIC new in
// cur counts from its first sample on).
func allowanceDelta(prev, cur []Allowance) (uint64, Allowance) {
	var n, most uint64
	var top Allowance
	for _, c := range cur {
		for _, p := range prev {
			if p.Iface != c.Iface {
				continue
			}
			d := Increase(p.Exceeded, c.Exceeded)
			n += d
			if d > most {
				most, top = d, c
			}
		}
	}
	return n, top
}
