package model

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
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

// String is the rule as an operator reads it: "snat to
// 127.0.0.1:20000-20007 in ip natlab post (8 ports for each
// source–destination pair)".
func (p NATPool) String() string { return p.Clause().Text() }

// Clause is String's clause: the rule in words, its tuples and its
// addresses facts.
func (p NATPool) Clause() verdict.Clause {
	facts, key := p.facts()
	return say(verdict.Lead, "nat.pool"+key, facts...)
}

// facts are the pool's rule, chain, tuples and (with more than one)
// addresses, and the key suffix that says which: "" or ".addresses".
func (p NATPool) facts() ([]verdict.Fact, string) {
	to := "" // masquerade: the outgoing interface's address
	if len(p.Addrs) > 0 {
		to = strings.Join(p.Addrs, ",")
		if strings.Contains(to, ":") {
			to = "[" + to + "]"
		}
	}
	r := p.PortRange()
	rule := fmt.Sprintf("%s to %s:%d-%d", p.Rule, to, r[0], r[1])
	if len(p.Flags) > 0 {
		rule += " " + strings.Join(p.Flags, ",")
	}
	scope := "the rule in " + p.Chain
	facts := []verdict.Fact{verdict.W("rule", safe.Text(rule, 160)), verdict.W("chain", safe.Text(p.Chain, 80)),
		verdict.N("tuples", p.Tuples(), verdict.Number).From("the ruleset: the rule's port range", scope)}
	if n := p.Addresses(); n > 1 {
		return append(facts, verdict.N("addresses", n, verdict.Number).From("the ruleset: the rule's addresses", scope)), ".addresses"
	}
	return facts, ""
}

// OutOfPorts says the pool found no free source port: the rule, its
// tuples, and the tries the kernel makes before it drops.
func (p NATPool) OutOfPorts() verdict.Clause {
	facts, key := p.facts()
	return say(verdict.Lead, "nat.ports"+key, append(facts, verdict.N("tries", NATTries, verdict.Number).From("nf_nat_l4proto_unique_tuple's attempts", "this kernel"))...)
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

// NATRemedies are the ways to free a pool's ports for the busiest pair:
// more ports, fewer new connections, more destinations; randomising them
// is left out where the rule already does (nft prints iptables'
// random-fully as fully-random); more addresses only for the pairs of
// other sources, which the kernel may map elsewhere.
func NATRemedies(p NATPool, kernel string) []verdict.Clause {
	cs := []verdict.Clause{say(verdict.Fix, "nat.fix")}
	if reclaims, _ := NATReclaimsTimeWait(kernel); !reclaims { // a kernel that takes TIME_WAIT tuples back is not helped by a shorter one
		cs = append(cs, say(verdict.Fix, "nat.fix.time-wait").After(", "))
	}
	random := true
	for _, f := range p.Flags {
		if f == "fully-random" || f == "random-fully" {
			random = false
		}
	}
	if random {
		cs = append(cs, say(verdict.Fix, "nat.fix.random").After(", "))
	}
	return append(cs, say(verdict.Fix, "nat.fix.addresses"))
}

// DNSShare says what the census found of UDP/53, the lookups whose race
// is the classic clash: "; the census holds 40 UDP/53 entries (DNS)", or
// that it holds none (a race of other flows), "" with no census.
func DNSShare(c *Census) (verdict.Clause, bool) {
	if c == nil || c.Error != "" {
		return verdict.Clause{}, false
	}
	for _, p := range c.TopPorts {
		if p.Key == DestKey(17, 53) {
			return say(verdict.Class, "clash.dns",
				verdict.N("dns", max(0, p.N), verdict.Entries).From("the census's destination ports", ThisTable+", the census's walk")), true
		}
	}
	if len(c.TopPorts) < CensusTop { // every port listed: none is UDP/53
		return say(verdict.Class, "clash.no-dns"), true
	}
	return verdict.Clause{}, false
}

// Busiest is where the census found the most entries going, and how
// many hold their tuples in TIME_WAIT, as the kernel holds them: "; the
// census's busiest destination 10.0.0.5 (8 entries), tcp/443 (8); 0 to
// it in TIME_WAIT …" ("" with no census).
func Busiest(c *Census, kernel string) []verdict.Clause {
	if c == nil || c.Error != "" || len(c.TopDests) == 0 {
		return nil
	}
	walk := ThisTable + ", the census's walk"
	dest := c.TopDests[0].Key
	facts := []verdict.Fact{verdict.W("dest", safe.Text(dest, 64)),
		verdict.N("dest n", max(0, c.TopDests[0].N), verdict.Entries).From("the census's destinations", walk)}
	key := "nat.busiest"
	if svc := c.DestServices[dest]; svc != "" { // where kube-proxy's ruleset names it
		key = "nat.busiest.service"
		facts = append(facts, verdict.W("service", safe.Text(svc, 120)))
	}
	cs := []verdict.Clause{say(verdict.Class, key, facts...)}
	if len(c.TopPorts) > 0 {
		cs = append(cs, say(verdict.Class, "nat.busiest.port", verdict.W("port", safe.Text(c.TopPorts[0].Key, 32)),
			verdict.N("port n", max(0, c.TopPorts[0].N), verdict.Entries).From("the census's destination ports", walk)).After(", "))
	}
	key = "nat.time-wait"
	switch reclaims, known := NATReclaimsTimeWait(kernel); {
	case reclaims:
		key = "nat.time-wait.reclaimed"
	case !known:
		key = "nat.time-wait.unknown"
	}
	return append(cs, say(verdict.Class, key, timeWaitTo(c, c.TopDests[0].Key),
		verdict.N("time_wait", max(0, c.TCPState["TIME_WAIT"]), verdict.Entries).From("the census's TCP states", walk)))
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
func timeWaitTo(c *Census, dest string) verdict.Fact {
	for _, d := range c.TopTimeWaitDests {
		if d.Key == dest {
			return verdict.N("to it", max(0, d.N), verdict.Entries).From("the census's TIME_WAIT destinations", ThisTable+", the census's walk")
		}
	}
	if c.Approximate || c.TopTimeWaitDests == nil { // nil: a census from before they were counted
		return verdict.W("to it", "an unknown number")
	}
	return verdict.N("to it", 0, verdict.Entries).From("the census's TIME_WAIT destinations", ThisTable+", the census's walk")
}
