package model

import (
	"net/netip"
	"sort"
)

// DNATTarget is where a DNAT sent UDP entries: a target that may have
// gone from the ruleset while its clients' entries still point at it.
type DNATTarget struct {
	// Target is the DNAT's destination, address and port
	// ("10.244.1.7:53").
	Target string `json:"target"`
	// Entries counts its UDP entries, Unreplied those of them that
	// never saw a reply (recordings from before Entries was counted hold
	// only never-answered targets: Entries 0, all Unreplied).
	Entries   int `json:"entries,omitempty"`
	Unreplied int `json:"unreplied"`
	// Via is the destination its first entry asked for, before the DNAT
	// ("10.96.0.10:53": a Service's address).
	Via string `json:"via,omitempty"`
	// Service is the Service kube-proxy's ruleset names for Via or
	// Target ("kube-system/kube-dns:dns"), where it names one.
	Service string `json:"service,omitempty"`
	// Gone: the ruleset, read after the dump, no longer names the
	// target's address anywhere (Census.DNATChecked).
	Gone bool `json:"gone,omitempty"`
}

// Count is how many entries point at the target.
func (t DNATTarget) Count() int { return max(t.Entries, t.Unreplied, 0) }

// neverAnswered: none of the target's entries saw a reply, and there are
// StaleDNATMin of them or more — worth doubting before the ruleset says.
func (t DNATTarget) neverAnswered() bool {
	return t.Unreplied == t.Count() && t.Unreplied >= StaleDNATMin
}

// Bounds of the census's DNAT targets: StaleDNATMin entries never
// answered make a target worth naming before the ruleset is read,
// StaleDNATShown are kept (gone ones first), and dnatTracked targets are
// counted (the rest are not).
const (
	StaleDNATMin   = 10
	StaleDNATShown = 4
	dnatTracked    = 256
)

// dnatCount is one DNAT target's UDP entries, by whether they saw a
// reply, and the destination its first entry asked for.
type dnatCount struct {
	unreplied, replied int
	via                netip.AddrPort
}

// countDNAT counts a UDP entry whose reply comes from another address or
// port than its original destination: a DNAT sent it there.
func (c *CensusCounter) countDNAT(f Flow) {
	if !f.ReplySrc.IsValid() || (f.ReplySrc == f.Dst && f.ReplySrcPort == f.DstPort) {
		return
	}
	if c.dnatAny = true; f.Proto != 17 {
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
	if !ok {
		n.via = netip.AddrPortFrom(f.Dst, f.DstPort)
	}
	if f.Status&StatusSeenReply == 0 {
		n.unreplied++
	} else {
		n.replied++
	}
	c.dnat[to] = n
}

// dnatTargets is every DNAT target counted, most entries first: the
// ruleset judges each (JudgeDNAT), whatever its count.
func (c *CensusCounter) dnatTargets() []DNATTarget {
	out := make([]DNATTarget, 0, len(c.dnat))
	for to, n := range c.dnat {
		t := DNATTarget{Target: to.String(), Entries: n.unreplied + n.replied, Unreplied: n.unreplied}
		if n.via.IsValid() {
			t.Via = n.via.String()
		}
		out = append(out, t)
	}
	sortDNAT(out)
	return out
}

// sortDNAT orders targets gone ones first, then by entries, then by name.
func sortDNAT(ts []DNATTarget) {
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		switch {
		case a.Gone != b.Gone:
			return a.Gone
		case a.Count() != b.Count():
			return a.Count() > b.Count()
		}
		return a.Target < b.Target
	})
}

// unanswered is the targets none of whose entries saw a reply,
// StaleDNATMin of them or more: what is worth naming before the ruleset
// says which are gone.
func unanswered(ts []DNATTarget) []DNATTarget {
	var out []DNATTarget
	for _, t := range ts {
		if t.neverAnswered() {
			out = append(out, t)
		}
	}
	return out[:min(len(out), StaleDNATShown)]
}

// HasDNAT reports whether the dump counted entries a DNAT sent
// somewhere: only then is the ruleset worth reading.
func (c *Census) HasDNAT() bool { return c.dnatAny || len(c.dnatAll) > 0 || len(c.StaleDNAT) > 0 }

// NameDests names the top destinations a Service is known for (service:
// "" for none).
func (c *Census) NameDests(service func(addr string) string) {
	for _, d := range c.TopDests {
		if name := service(d.Key); name != "" {
			if c.DestServices == nil {
				c.DestServices = map[string]string{}
			}
			c.DestServices[d.Key] = name
		}
	}
}

// JudgeDNAT judges every DNAT target the census counted by the ruleset
// read after its dump: names says whether the ruleset still names an
// address, service the Service it names for a target (its Via or the
// target itself; "" for none). A gone target is kept whatever its count
// and whether it answered before — one long-lived socket is one entry,
// answered while the backend lived — then the unanswered ones still
// named; StaleDNATShown in all.
func (c *Census) JudgeDNAT(names func(netip.Addr) bool, service func(DNATTarget) string) {
	all := c.dnatAll
	if all == nil {
		all = c.StaleDNAT
	}
	var kept []DNATTarget
	for _, t := range all {
		a := t.TargetAddr()
		t.Gone = a.IsValid() && !names(a)
		if !t.Gone && !t.neverAnswered() {
			continue
		}
		if service != nil {
			t.Service = service(t)
		}
		kept = append(kept, t)
	}
	sortDNAT(kept)
	c.StaleDNAT, c.DNATChecked, c.dnatAll = kept[:min(len(kept), StaleDNATShown)], true, nil
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
