package entry

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// statusBits are the status names conntrack(8)'s -u takes (IPS_* of
// linux/netfilter/nf_conntrack_common.h). UNREPLIED is no SEEN_REPLY, as
// conntrack -L prints and filters it.
var statusBits = map[string]uint32{"EXPECTED": 1 << 0, "SEEN_REPLY": model.StatusSeenReply, "ASSURED": model.StatusAssured,
	"FIXED_TIMEOUT": 1 << 10, "OFFLOAD": 1 << 14}

// listenState is conntrack(8)'s other name of the TCP state after a
// simultaneous open: the kernel's TCP_CONNTRACK_LISTEN is SYN_SENT2.
const listenState = "LISTEN"

func (f *Filter) set(k, v string) error {
	var err error
	switch k {
	case "proto":
		f.Proto, err = protoNumber(v)
	case "family":
		f.Family, err = familyOf(v)
	case "src", "dst", "reply-src", "reply-dst":
		var p netip.Prefix
		p, err = prefixOf(v)
		*map[string]*netip.Prefix{"src": &f.Src, "dst": &f.Dst, "reply-src": &f.ReplySrc, "reply-dst": &f.ReplyDst}[k] = p
	case "sport", "dport", "reply-port-src", "reply-port-dst":
		n, perr := strconv.ParseUint(v, 10, 16)
		if perr != nil || n == 0 {
			err = errors.New("not a port (1–65535)")
		}
		*map[string]*uint16{"sport": &f.SPort, "dport": &f.DPort, "reply-port-src": &f.ReplySPort, "reply-port-dst": &f.ReplyDPort}[k] = uint16(n)
	case "state":
		f.State, err = stateOf(v)
	case "status":
		err = f.setStatus(v)
	case "mark":
		err = f.setMark(v)
	case "zone", "orig-zone", "reply-zone", "timeout-over":
		var n uint64
		bits := map[bool]int{true: 16, false: 32}[k != "timeout-over"]
		if n, err = strconv.ParseUint(v, 0, bits); err != nil {
			return fmt.Errorf("not a number of %d bits (decimal, or 0x hex)", bits)
		}
		u := uint32(n)
		*map[string]**uint32{"zone": &f.Zone, "orig-zone": &f.OrigZone, "reply-zone": &f.ReplyZone, "timeout-over": &f.TimeoutOver}[k] = &u
	case "src-nat", "dst-nat", "any-nat":
		nat := NATFilter{Set: true}
		if v != AnyAddress {
			if nat.Addr, err = netip.ParseAddr(v); err != nil {
				return errors.New("not an address (10.0.0.1, fd00::1)")
			}
			nat.Addr = nat.Addr.Unmap()
		}
		*map[string]*NATFilter{"src-nat": &f.SrcNAT, "dst-nat": &f.DstNAT, "any-nat": &f.AnyNAT}[k] = nat
	case "label":
		for _, name := range strings.Split(v, ",") {
			if !isLabelName(name) {
				return errors.New("not a label's name (connlabel.conf's: letters, digits, - _ .)")
			}
			if !slices.Contains(f.Labels, name) {
				f.Labels = append(f.Labels, name)
			}
		}
	}
	return err
}

// stateOf reads a TCP state's name as conntrack(8) prints it.
func stateOf(v string) (string, error) {
	v = strings.ToUpper(v)
	if v == listenState {
		return model.TCPStates[len(model.TCPStates)-1], nil
	}
	if i := slices.Index(model.TCPStates, v); i >= 0 {
		return model.TCPStates[i], nil
	}
	return "", fmt.Errorf("not a TCP state (%s, %s)", strings.Join(model.TCPStates, ", "), listenState)
}

// setStatus reads -u's comma-separated status names.
func (f *Filter) setStatus(v string) error {
	var names []string
	for n := range statusBits {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range strings.Split(strings.ToUpper(v), ",") {
		switch bit, ok := statusBits[name]; {
		case ok:
			f.Status |= bit
		case name == "UNREPLIED":
			f.Unreplied = true
		default:
			return fmt.Errorf("not a status (%s, UNREPLIED)", strings.Join(names, ", "))
		}
	}
	return nil
}

// setMark reads MARK[/MASK]: an entry matches when its mark, masked,
// is MARK masked.
func (f *Filter) setMark(v string) error {
	bad := errors.New("not a mark (a number of 32 bits, decimal or 0x hex, with /MASK or without)")
	value, mask, masked := strings.Cut(v, "/")
	n, err := strconv.ParseUint(value, 0, 32)
	if err != nil {
		return bad
	}
	m := uint64(0)
	if masked {
		if m, err = strconv.ParseUint(mask, 0, 32); err != nil {
			return bad
		}
	}
	u := uint32(n)
	f.Mark, f.MarkMask = &u, uint32(m)
	return nil
}

// familyOf reads -f's layer three protocol.
func familyOf(v string) (uint8, error) {
	switch strings.ToLower(v) {
	case "ipv4", "inet", "4":
		return 4, nil
	case "ipv6", "inet6", "6":
		return 6, nil
	}
	return 0, errors.New("not a family (ipv4, ipv6)")
}

// protoNumber reads a protocol's name or number.
func protoNumber(v string) (uint8, error) {
	if n, ok := model.ProtoNamed(v); ok {
		return n, nil
	}
	n, err := strconv.ParseUint(v, 10, 8)
	if err != nil || n == 0 {
		return 0, errors.New("not a protocol (tcp, udp, icmp, … or a number 1–255)")
	}
	return uint8(n), nil
}

// prefixOf reads an address (a one-address prefix) or a CIDR.
func prefixOf(v string) (netip.Prefix, error) {
	if strings.Contains(v, "/") {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return netip.Prefix{}, errors.New("not an address/prefix (10.0.0.0/8, fd00::/64)")
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Prefix{}, errors.New("not an address (10.0.0.1, fd00::1)")
	}
	return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
}
