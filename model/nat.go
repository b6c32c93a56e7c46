package model

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"

	"github.com/tablefull/tablefull/model/units"
)

// NAT is the source NAT a ruleset does (masquerade, snat): read when
// entries failed to insert, for a NAT that finds no free source port
// drops the packet (counted in insert_failed and drop).
type NAT struct {
	Pools []NATPool `json:"pools,omitempty"`
	// Note says why the ruleset was not read, when it was not.
	Note string `json:"note,omitempty"`
}

// NATPool is one masquerade or snat rule: the addresses and source ports
// it maps new flows into.
type NATPool struct {
	// Rule is "masquerade" or "snat".
	Rule string `json:"rule"`
	// Chain is where the rule is: "ip natlab post".
	Chain string `json:"chain"`
	// Addrs are the addresses it maps to, as the rule gives them (a range
	// "a-b" counts as its addresses); none: the outgoing interface's one.
	Addrs []string `json:"addrs,omitempty"`
	// Ports is its source-port range; zero: the kernel's (1024–65535).
	Ports [2]uint16 `json:"ports,omitempty"`
	// Flags are its flags: random, random-fully, persistent.
	Flags []string `json:"flags,omitempty"`
}

// Bounds of what a sample carries of a ruleset.
const (
	MaxNATPools = 8
	MaxNATAddrs = 4
	MaxNATFlags = 3
)

// natDefaultPorts is the range a rule without ports maps into.
var natDefaultPorts = [2]uint16{1024, 65535}

// PortRange is the pool's source ports, the kernel's when it names none.
func (p NATPool) PortRange() [2]uint16 {
	if p.Ports[1] == 0 {
		return natDefaultPorts
	}
	return p.Ports
}

// Tuples is how many flows one source can have through the pool to one
// destination (address, port, protocol) at once: its ports. The kernel
// maps each source–destination pair to one of the pool's addresses by a
// hash (find_best_ips_proto) and varies only the port for it
// (nf_nat_l4proto_unique_tuple), so more addresses spread other pairs
// over the pool and never widen one.
func (p NATPool) Tuples() uint64 {
	r := p.PortRange()
	return uint64(r[1]) - uint64(r[0]) + 1
}

// Addresses is how many addresses the pool maps to (1: the outgoing
// interface's).
func (p NATPool) Addresses() uint64 {
	n := uint64(0)
	for _, a := range p.Addrs {
		n += addrCount(a)
	}
	return max(n, 1)
}

// NATTries is how many source ports the kernel tries for a flow before
// it drops the packet: 128, then 64, 32 and 16 from new random offsets
// (since 5.0), so drops begin before every port is taken.
const NATTries = 128 + 64 + 32 + 16

// addrCount is how many IPv4 addresses "a", "a-b" or "a/len" names (1
// otherwise).
func addrCount(a string) uint64 {
	if p, err := netip.ParsePrefix(a); err == nil && p.Addr().Is4() && p.Bits() >= 16 {
		return 1 << (32 - p.Bits())
	}
	lo, hi, ok := strings.Cut(a, "-")
	x, errx := netip.ParseAddr(lo)
	y, erry := netip.ParseAddr(hi)
	if !ok || errx != nil || erry != nil || !x.Is4() || !y.Is4() || y.Less(x) {
		return 1
	}
	xb, yb := x.As4(), y.As4()
	return uint64(binary.BigEndian.Uint32(yb[:])-binary.BigEndian.Uint32(xb[:])) + 1
}

// String is the rule as an operator reads it: "snat to 127.0.0.1:20000-20007
// in ip natlab post (8 ports for each source–destination pair)".
func (p NATPool) String() string {
	to := "" // masquerade: the outgoing interface's address
	if len(p.Addrs) > 0 {
		to = strings.Join(p.Addrs, ",")
		if strings.Contains(to, ":") {
			to = "[" + to + "]"
		}
	}
	r := p.PortRange()
	s := fmt.Sprintf("%s to %s:%d-%d", p.Rule, to, r[0], r[1])
	if len(p.Flags) > 0 {
		s += " " + strings.Join(p.Flags, ",")
	}
	s = fmt.Sprintf("%s in %s (%s ports for each source–destination pair", s, p.Chain, units.Int(p.Tuples()))
	if n := p.Addresses(); n > 1 {
		s += fmt.Sprintf("; its %s addresses take other pairs, not more of one", units.Int(n))
	}
	return s + ")"
}

// Narrowest is the pool with the fewest tuples, false with none.
func (n *NAT) Narrowest() (NATPool, bool) {
	if n == nil || len(n.Pools) == 0 {
		return NATPool{}, false
	}
	best := n.Pools[0]
	for _, p := range n.Pools[1:] {
		if p.Tuples() < best.Tuples() {
			best = p
		}
	}
	return best, true
}

// InsertDrops are the interval's packets dropped on inserting their
// entry — a clash with another flow's tuple, or a NAT that found no free
// source port: insert_failed beyond the chain-too-long events (which drop
// without counting drop), at most drop. A full table's drops are the
// rest of drop (FullDrops).
func (r Rates) InsertDrops() uint64 {
	failed, chains := r.CTTotal.Get(InsertFailed), r.CTTotal.Get(ChainTooLong)
	if failed <= chains {
		return 0
	}
	return min(failed-chains, r.CTTotal.Get(Drop))
}

// FullDrops are the interval's drop count less the insert drops: the
// packets a full table refused.
func (r Rates) FullDrops() uint64 { return r.CTTotal.Get(Drop) - r.InsertDrops() }

// insertDropCounts says the interval's insert drops while the table is
// not at its cap; ok is false when there were none, or it is pinned (a
// full table's drops are its own).
func insertDropCounts(in Inputs) (string, bool) {
	n := in.Rates.InsertDrops()
	c := in.Sample.Conntrack
	if n == 0 || Pinned(c) {
		return "", false
	}
	return fmt.Sprintf("%s packets dropped on inserting their entry (insert_failed and drop) while the count is %s of max %s",
		units.Int(n), units.Int(c.Count), units.Int(c.Max)), true
}

// ruleNATPorts: packets dropped on inserting their entry while the table
// is not at its cap, with source NAT in the ruleset: the pool ran out of
// tuples, and every new flow to that destination fails. Never a full
// table.
func ruleNATPorts(in Inputs) (Verdict, bool) {
	counts, ok := insertDropCounts(in)
	p, nat := in.Sample.NAT.Narrowest()
	if !ok || !nat {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s: the source NAT %s finds no free source port for new flows (it tries %d before it drops, so drops begin before every port is taken)%s: %s; not a full table",
		counts, p, NATTries, busiest(in.Census, in.Sample.KernelRelease), natRemedies(p, in.Sample.KernelRelease))}, true
}

// natRemedies are the ways to free a pool's ports for the busiest pair:
// more ports, fewer new connections, more destinations; randomising them
// is left out where the rule already does (nft prints iptables'
// random-fully as fully-random); more addresses only for the pairs of
// other sources, which the kernel may map elsewhere.
func natRemedies(p NATPool, kernel string) string {
	r := "widen its ports, reuse connections (keep-alive) or spread them over more destinations"
	if reclaims, _ := NATReclaimsTimeWait(kernel); !reclaims { // a kernel that takes TIME_WAIT tuples back is not helped by a shorter one
		r += ", shorten TIME_WAIT on that path"
	}
	random := true
	for _, f := range p.Flags {
		if f == "fully-random" || f == "random-fully" {
			random = false
		}
	}
	if random {
		r += ", use random-fully"
	}
	return r + "; more egress addresses help only other sources' pairs (each source–destination pair gets one address)"
}

// ruleInsertClash: packets dropped on inserting their entry while the
// table is not at its cap, with no source NAT in the ruleset: flows
// clashed on a tuple. Never a full table. Which flows, the kernel's
// version decides: before 5.6 two UDP flows racing for one tuple
// (parallel lookups behind a DNAT) lost one; since nf_ct_resolve_clash
// harder the kernel keeps both and counts clash_resolve (a counter from
// 5.10 on), so on a kernel that reports it the drops are reply-tuple
// clashes, dying entries or TCP.
func ruleInsertClash(in Inputs) (Verdict, bool) {
	counts, ok := insertDropCounts(in)
	if _, nat := in.Sample.NAT.Narrowest(); !ok || nat {
		return Verdict{}, false
	}
	why := "the ruleset was not read"
	if nat := in.Sample.NAT; nat != nil {
		why = "no source NAT in the ruleset"
		if nat.Note != "" {
			why = "the ruleset was not read: " + nat.Note
		}
	}
	if in.Sample.CTStats.Reports(ClashResolve) { // a kernel that counts resolved clashes resolves UDP's (5.6 on)
		return Verdict{Evidence: fmt.Sprintf(
			"%s: flows clashed on a tuple (%s)%s — this kernel resolves two UDP flows racing for one (clash_resolve, since 5.6), so these are what it cannot: two flows whose replies would share a tuple (a NAT mapping both to one), an entry already dying, or TCP; not the 5 s DNS race, and not a full table%s",
			counts, why, dnsShare(in.Census), resolvedClashes(in.Rates, "more "))}, true
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s: two flows raced for one tuple (%s)%s — parallel UDP lookups behind a DNAT, the 5 s DNS delay on kernels before 5.6 (this one counts no resolved clashes): single-request-reopen, a node-local DNS cache or DNS over TCP; not a full table%s",
		counts, why, dnsShare(in.Census), resolvedClashes(in.Rates, "more "))}, true
}

// dnsShare says what the census found of UDP/53, the lookups whose race
// is the classic clash: "; the census holds 40 UDP/53 entries (DNS)", or
// that it holds none (a race of other flows), "" with no census.
func dnsShare(c *Census) string {
	if c == nil || c.Error != "" {
		return ""
	}
	for _, p := range c.TopPorts {
		if p.Key == DestKey(17, 53) {
			return fmt.Sprintf("; the census holds %s UDP/53 entries (DNS lookups)", units.Int(uint64(max(0, p.N))))
		}
	}
	if len(c.TopPorts) < CensusTop { // every port listed: none is UDP/53
		return "; the census holds no UDP/53 entries: flows other than DNS lookups raced"
	}
	return ""
}

// resolvedClashes says the interval's clashes the kernel resolved (two
// flows raced for one tuple and both went through: no verdict of their
// own), "" when none: "; 40 clashes the kernel resolved (clash_resolve:
// harmless)". more is put before "clashes" beside the ones that dropped.
func resolvedClashes(r Rates, more string) string {
	if n := r.CTTotal.Get(ClashResolve); n > 0 {
		return fmt.Sprintf("; %s %sclashes the kernel resolved (clash_resolve: harmless)", units.Int(n), more)
	}
	return ""
}

// busiest is where the census found the most entries going, and how
// many hold their tuples in TIME_WAIT, as the kernel holds them: "; the
// census's busiest destination 10.0.0.5 (8 entries), tcp/443 (8); 0 to
// it in TIME_WAIT …" ("" with no census).
func busiest(c *Census, kernel string) string {
	if c == nil || c.Error != "" || len(c.TopDests) == 0 {
		return ""
	}
	dest := c.TopDests[0].Key
	if svc := c.DestServices[dest]; svc != "" { // where kube-proxy's ruleset names it
		dest += " (Service " + Sanitize(svc, 120) + ")"
	}
	s := fmt.Sprintf("; the census's busiest destination %s (%s entries)", dest, units.Int(uint64(max(0, c.TopDests[0].N))))
	if len(c.TopPorts) > 0 {
		s += fmt.Sprintf(", %s (%s)", c.TopPorts[0].Key, units.Int(uint64(max(0, c.TopPorts[0].N))))
	}
	hold := "still hold their tuples"
	switch reclaims, known := NATReclaimsTimeWait(kernel); {
	case reclaims:
		hold = "hold their tuples until a new flow's last tries take them back (this kernel reclaims TIME_WAIT tuples, 6.5 on)"
	case !known:
		hold = "hold their tuples (before 6.5; from 6.5 a new flow's last tries take them back)"
	}
	return s + fmt.Sprintf("; %s to it in TIME_WAIT (%s in all) %s", timeWaitTo(c, c.TopDests[0].Key),
		units.Int(uint64(max(0, c.TCPState["TIME_WAIT"]))), hold)
}

// NATReclaimsTimeWait reports whether the kernel of release takes a
// source-NAT tuple held in TIME_WAIT or CLOSE back for a new TCP flow
// that found no free one; known is false for an unknown release.
// nf_nat_used_tuple_harder does so in the last tries, since 6.5.
func NATReclaimsTimeWait(release string) (yes, known bool) {
	return release != "" && KernelAtLeast(release, 6, 5), release != ""
}

// timeWaitTo is how many TIME_WAIT entries the census found to dest:
// its count, 0 when an exact census lists none, "some" when a census
// past its sketch's size may have left it out.
func timeWaitTo(c *Census, dest string) string {
	for _, d := range c.TopTimeWaitDests {
		if d.Key == dest {
			return units.Int(uint64(max(0, d.N)))
		}
	}
	if c.Approximate || c.TopTimeWaitDests == nil { // nil: a census from before they were counted
		return "an unknown number"
	}
	return "0"
}
