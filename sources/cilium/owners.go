package cilium

import (
	"encoding/binary"
	"net/netip"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// The key both map kinds share is Cilium's struct ipv4_ct_tuple or
// ipv6_ct_tuple (bpf/lib/common.h, Cilium 1.14 to 1.18), packed: daddr,
// saddr (4 or 16 bytes each), dport, sport (network order), nexthdr,
// flags.
const (
	keyV4 = 4 + 4 + 2 + 2 + 1 + 1
	keyV6 = 16 + 16 + 2 + 2 + 1 + 1
	// tupleRelated and tupleService are two of its flags
	// (TUPLE_F_RELATED, TUPLE_F_SERVICE); TUPLE_F_OUT is 0, TUPLE_F_IN 1.
	tupleRelated = 2
	tupleService = 4
)

// mapTally counts who fills one map from its keys, in bounded sketches.
type mapTally struct {
	nat, known   bool
	addrLen      int
	endpoints    tally.Sketch[netip.Addr]
	destinations tally.Sketch[netip.AddrPort]
}

// newTally tallies the keys of map name, keySize bytes each; a key of
// another size is not a layout tablefull knows, and is not read.
func newTally(name string, keySize int) *mapTally {
	t := &mapTally{nat: model.CiliumNAT(name)}
	switch keySize {
	case keyV4:
		t.addrLen, t.known = 4, true
	case keyV6:
		t.addrLen, t.known = 16, true
	}
	return t
}

// add counts one key. A conntrack entry's addresses are stored reversed
// (Cilium's own words: "these field names are correct for reply direction
// traffic"), its ports not: whoever opened the flow is daddr, where it
// went saddr:dport. Related entries (ICMP errors) and the load balancer's
// service entries are not flows anyone opened. A NAT map holds two
// entries a flow, keyed as the packet was: the egress one (flags
// TUPLE_F_OUT) says who (saddr) went where (daddr:dport); the ingress one
// is its reverse and is not counted.
func (t *mapTally) add(key []byte) {
	if !t.known || len(key) != 2*t.addrLen+6 {
		return
	}
	d, s := addrOf(key[:t.addrLen]), addrOf(key[t.addrLen:2*t.addrLen])
	dport := binary.BigEndian.Uint16(key[2*t.addrLen:])
	flags := key[2*t.addrLen+5]
	opener, dest := d, s
	switch {
	case t.nat && flags != 0:
		return
	case t.nat:
		opener, dest = s, d
	case flags&(tupleRelated|tupleService) != 0:
		return
	}
	t.endpoints.Add(opener)
	t.destinations.Add(netip.AddrPortFrom(dest, dport))
}

// top puts the busiest endpoints and destinations into m.
func (t *mapTally) top(m *model.CiliumMap) {
	if !t.known {
		return
	}
	m.Endpoints = t.endpoints.Top(model.MaxCiliumTops, netip.Addr.String)
	m.Dests = t.destinations.Top(model.MaxCiliumTops, netip.AddrPort.String)
}

// addrOf is an address from its bytes in network order.
func addrOf(b []byte) netip.Addr {
	a, _ := netip.AddrFromSlice(b)
	return a.Unmap()
}
