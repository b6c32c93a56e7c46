package model

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"
)

// DNATTarget is where a DNAT sent UDP entries, none of which ever saw a
// reply: a target that never answered them.
type DNATTarget struct {
	// Target is the DNAT's destination, address and port
	// ("10.244.1.7:53").
	Target string `json:"target"`
	// Unreplied counts its UDP entries (all of them unreplied).
	Unreplied int `json:"unreplied"`
	// Gone: the ruleset, read after the dump, no longer names the
	// target's address anywhere (Census.DNATChecked).
	Gone bool `json:"gone,omitempty"`
}

// Bounds of the census's unanswered DNAT targets: StaleDNATMin entries
// make a target worth naming, StaleDNATShown are kept (most first), and
// dnatTracked targets are counted (the rest are not).
const (
	StaleDNATMin   = 10
	StaleDNATShown = 4
	dnatTracked    = 256
)

// dnatCount is one DNAT target's UDP entries, by whether they saw a reply.
type dnatCount struct{ unreplied, replied int }

// countDNAT counts a UDP entry whose reply comes from another address or
// port than its original destination: a DNAT sent it there.
func (c *CensusCounter) countDNAT(f Flow) {
	if f.Proto != 17 || !f.ReplySrc.IsValid() || (f.ReplySrc == f.Dst && f.ReplySrcPort == f.DstPort) {
		return
	}
	to := netip.AddrPortFrom(f.ReplySrc, f.ReplySrcPort)
	n, ok := c.dnat[to]
	if !ok && len(c.dnat) >= dnatTracked {
		return
	}
	if c.dnat == nil {
		c.dnat = map[netip.AddrPort]dnatCount{}
	}
	if f.Status&StatusSeenReply == 0 {
		n.unreplied++
	} else {
		n.replied++
	}
	c.dnat[to] = n
}

// staleDNAT is the DNAT targets none of whose UDP entries saw a reply,
// StaleDNATMin of them or more, most first.
func (c *CensusCounter) staleDNAT() []DNATTarget {
	var out []DNATTarget
	for to, n := range c.dnat {
		if n.replied == 0 && n.unreplied >= StaleDNATMin {
			out = append(out, DNATTarget{Target: to.String(), Unreplied: n.unreplied})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Unreplied != out[j].Unreplied {
			return out[i].Unreplied > out[j].Unreplied
		}
		return out[i].Target < out[j].Target
	})
	return out[:min(len(out), StaleDNATShown)]
}

// TargetAddr is the address of a DNAT target ("10.244.1.7" of
// "10.244.1.7:53"); invalid if Target is not an address and port.
func (t DNATTarget) TargetAddr() netip.Addr {
	ap, err := netip.ParseAddrPort(t.Target)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr()
}

// ruleStaleDNAT: UDP entries a DNAT sent to a target that no longer is
// one. None ever saw a reply, and each packet their clients send
// refreshes them, so the flows stay blackholed for as long as the clients
// keep their sockets, however the rules changed: the stale-UDP blackhole
// of a backend gone from a service. Warning.
func ruleStaleDNAT(in Inputs) (Verdict, bool) {
	c := in.Census
	if c == nil || c.Error != "" || !c.DNATChecked {
		return Verdict{}, false
	}
	var gone, counted []string
	n := 0
	for _, t := range c.StaleDNAT {
		if t.Gone {
			gone = append(gone, t.Target)
			counted = append(counted, fmt.Sprintf("%s (%s)", t.Target, Int(uint64(max(0, t.Unreplied)))))
			n += max(0, t.Unreplied)
		}
	}
	if len(gone) == 0 {
		return Verdict{}, false
	}
	if len(gone) > 1 { // which holds how many
		gone = counted
	}
	first := c.StaleDNAT[0].TargetAddr()
	for _, t := range c.StaleDNAT {
		if t.Gone {
			first = t.TargetAddr()
			break
		}
	}
	filter := "-p udp --reply-src " + first.String()
	return Verdict{Evidence: fmt.Sprintf(
		"%s UDP entries a DNAT sent to %s never saw a reply, and the ruleset no longer names that target: each packet their clients send refreshes them, so those flows stay blackholed while the clients keep their sockets; conntrack -D %s drops them now (E then D in the console); not a full table",
		Int(uint64(n)), strings.Join(gone, ", "), filter), Entries: filter}, true
}
