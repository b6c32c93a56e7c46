package ruleset

import (
	"net/netip"
	"regexp"
)

// Named is the addresses a listing names, read from it once: a census
// asks it of every DNAT target it counted, and a listing can be
// megabytes.
type Named struct {
	addrs  map[netip.Addr]bool
	ranges [][2]netip.Addr
}

// NamedIn reads every address a listing names: in a rule, a map or a
// set, as a whole word (10.0.0.1 is not named by 10.0.0.10), or as the
// ends of an address range (dnat to 10.0.0.1-10.0.0.9). An address right
// after "_" is part of a chain's name (kube-proxy's endpoint chains,
// "…__10.244.1.7/53", kept flushed for a while after the endpoint
// went): a name, not a rule sending flows there. A prefix (10.244.0.0/16)
// names no address in it: rules match whole pod networks by prefix, but
// send flows to addresses.
func NamedIn(listing []byte) *Named {
	n := &Named{addrs: map[netip.Addr]bool{}}
	for i := 0; i < len(listing); {
		if !v6Byte(listing[i]) {
			i++
			continue
		}
		end := i
		for end < len(listing) && v6Byte(listing[end]) {
			end++
		}
		if i == 0 || listing[i-1] != '_' {
			n.add(listing[i:end])
		}
		for j := i; j < end; { // the IPv4 words inside ("10.244.1.7" of "10.244.1.7:53")
			if !v4Byte(listing[j]) {
				j++
				continue
			}
			k := j
			for k < end && v4Byte(listing[k]) {
				k++
			}
			if j == 0 || listing[j-1] != '_' {
				n.add(listing[j:k])
			}
			j = k
		}
		i = end
	}
	for _, m := range rangeRe.FindAllSubmatch(listing, -1) {
		lo, err1 := netip.ParseAddr(string(m[1]))
		hi, err2 := netip.ParseAddr(string(m[2]))
		if err1 == nil && err2 == nil && lo.BitLen() == hi.BitLen() && lo.Compare(hi) <= 0 {
			n.ranges = append(n.ranges, [2]netip.Addr{lo, hi})
		}
	}
	return n
}

// add keeps word when it is an address.
func (n *Named) add(word []byte) {
	if a, err := netip.ParseAddr(string(word)); err == nil {
		n.addrs[a] = true
	}
}

// Names reports whether the listing names a: a target it does not name
// is one no rule can send a flow to any more.
func (n *Named) Names(a netip.Addr) bool {
	if n.addrs[a] {
		return true
	}
	for _, r := range n.ranges {
		if r[0].BitLen() == a.BitLen() && r[0].Compare(a) <= 0 && a.Compare(r[1]) <= 0 {
			return true
		}
	}
	return false
}

// rangeRe is an address range as nft prints one.
var rangeRe = regexp.MustCompile(`([0-9a-fA-F.:]+)-([0-9a-fA-F.:]+)`)

// v4Byte reports whether b can be part of an IPv4 address's text.
func v4Byte(b byte) bool { return b >= '0' && b <= '9' || b == '.' }

// v6Byte reports whether b can be part of an IPv6 address's text (an
// IPv4 one's too; its port follows a colon, an IPv6 one's a bracket).
func v6Byte(b byte) bool {
	return v4Byte(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' || b == ':'
}
