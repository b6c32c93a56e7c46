package ruleset

import (
	"bytes"
	"net/netip"
	"regexp"
)

// Names reports whether a listing names address a anywhere: in a rule, a
// map or a set, as a whole word (10.0.0.1 is not named by 10.0.0.10), or
// within an address range (dnat to 10.0.0.1-10.0.0.9). A target it does
// not name is one no rule can send a flow to any more. A prefix
// (10.244.0.0/16) does not name the addresses in it: rules match whole
// pod networks by prefix, but send flows to addresses.
func Names(listing []byte, a netip.Addr) bool {
	return namedAsWord(listing, a) || inRange(listing, a)
}

// rangeRe is an address range as nft prints one.
var rangeRe = regexp.MustCompile(`([0-9a-fA-F.:]+)-([0-9a-fA-F.:]+)`)

// inRange reports whether a lies in an address range of the listing.
func inRange(listing []byte, a netip.Addr) bool {
	for _, m := range rangeRe.FindAllSubmatch(listing, -1) {
		lo, err1 := netip.ParseAddr(string(m[1]))
		hi, err2 := netip.ParseAddr(string(m[2]))
		if err1 == nil && err2 == nil && lo.BitLen() == a.BitLen() && lo.Compare(a) <= 0 && a.Compare(hi) <= 0 {
			return true
		}
	}
	return false
}

// namedAsWord reports whether a's text is in the listing as a whole word.
func namedAsWord(listing []byte, a netip.Addr) bool {
	word := []byte(a.String())
	for rest := listing; ; {
		i := bytes.Index(rest, word)
		if i < 0 {
			return false
		}
		before, after := byte(' '), byte(' ')
		if i > 0 {
			before = rest[i-1]
		}
		if end := i + len(word); end < len(rest) {
			after = rest[end]
		}
		// after "__", an address is part of a chain's name (kube-proxy's
		// endpoint chains, "…__10.244.1.7/53"), kept flushed for a while
		// after the endpoint went: a name, not a rule sending flows there
		if !addrByte(a, before) && !addrByte(a, after) && before != '_' {
			return true
		}
		rest = rest[i+1:]
	}
}

// addrByte reports whether b can be part of the text of an address of
// a's family (an IPv4 address's port follows a colon; an IPv6 one's, a
// bracket).
func addrByte(a netip.Addr, b byte) bool {
	if b >= '0' && b <= '9' || b == '.' {
		return true
	}
	return a.Is6() && !a.Is4In6() && (b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' || b == ':')
}
