package entry

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// Match reports whether e passes the filter.
func (f Filter) Match(e model.Flow) bool {
	in := func(p netip.Prefix, a netip.Addr) bool { return !p.IsValid() || p.Contains(a.Unmap()) }
	port := func(want, got uint16) bool { return want == 0 || got == want }
	zone := func(want *uint32, got uint16) bool { return want == nil || uint32(got) == *want }
	switch {
	case f.Proto != 0 && e.Proto != f.Proto,
		f.Family == 4 && !e.Src.Unmap().Is4(), f.Family == 6 && (!e.Src.Is6() || e.Src.Is4In6()),
		!in(f.Src, e.Src), !in(f.Dst, e.Dst), !in(f.ReplySrc, e.ReplySrc), !in(f.ReplyDst, e.ReplyDst),
		!port(f.SPort, e.SrcPort), !port(f.DPort, e.DstPort), !port(f.ReplySPort, e.ReplySrcPort), !port(f.ReplyDPort, e.ReplyDstPort),
		f.State != "" && (e.TCPState < 0 || e.TCPState >= len(model.TCPStates) || model.TCPStates[e.TCPState] != f.State),
		e.Status&f.Status != f.Status, f.Unreplied && e.Status&model.StatusSeenReply != 0,
		!zone(f.Zone, e.Zone), !zone(f.OrigZone, e.OrigZone), !zone(f.ReplyZone, e.ReplyZone),
		f.Mark != nil && !markMatches(*f.Mark, f.MarkMask, e.Mark),
		!f.SrcNAT.matches(snatTo(e)), !f.DstNAT.matches(dnatTo(e)),
		f.AnyNAT.Set && !f.AnyNAT.matches(snatTo(e)) && !f.AnyNAT.matches(dnatTo(e)),
		f.TimeoutOver != nil && e.Timeout <= *f.TimeoutOver,
		!f.labelsMatch(e):
		return false
	}
	return true
}

// markMatches is conntrack(8)'s -m MARK[/MASK]: the entry's mark ANDed
// with the mask is MARK ANDed with it (no mask: the whole mark).
func markMatches(want, mask, got uint32) bool {
	if mask == 0 {
		return got == want
	}
	return got&mask == want&mask
}

// snatTo is where a source NAT sent e's replies (the reply's destination
// where it is not the original source); invalid when none did.
func snatTo(e model.Flow) netip.Addr {
	if e.ReplyDst.IsValid() && e.ReplyDst.Unmap() != e.Src.Unmap() {
		return e.ReplyDst.Unmap()
	}
	return netip.Addr{}
}

// dnatTo is where a destination NAT sent e (the reply's source where it
// is not the original destination); invalid when none did.
func dnatTo(e model.Flow) netip.Addr {
	if e.ReplySrc.IsValid() && e.ReplySrc.Unmap() != e.Dst.Unmap() {
		return e.ReplySrc.Unmap()
	}
	return netip.Addr{}
}

// matches reports whether a NAT to (invalid: none) passes n.
func (n NATFilter) matches(to netip.Addr) bool {
	return !n.Set || to.IsValid() && (!n.Addr.IsValid() || n.Addr == to)
}

// String is the filter as conntrack(8) would take it: "-p udp
// --reply-src 10.80.0.2" (with --timeout-over, as tablefull entries
// takes it); "" matches every entry.
func (f Filter) String() string {
	var parts []string
	add := func(opt, v string) { parts = append(parts, strings.TrimSpace(opt+" "+v)) }
	num := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	if f.Proto != 0 {
		name, ok := model.ProtoName(int(f.Proto))
		if !ok {
			name = strconv.Itoa(int(f.Proto))
		}
		add("-p", name)
	}
	if f.Family != 0 {
		add("-f", "ipv"+strconv.Itoa(int(f.Family)))
	}
	for _, p := range []struct {
		opt string
		v   netip.Prefix
	}{{"--src", f.Src}, {"--dst", f.Dst}, {"--reply-src", f.ReplySrc}, {"--reply-dst", f.ReplyDst}} {
		if p.v.IsValid() {
			add(p.opt, strings.TrimSuffix(p.v.String(), "/"+strconv.Itoa(p.v.Addr().BitLen())))
		}
	}
	for _, p := range []struct {
		opt string
		v   uint16
	}{{"--sport", f.SPort}, {"--dport", f.DPort}, {"--reply-port-src", f.ReplySPort}, {"--reply-port-dst", f.ReplyDPort}} {
		if p.v != 0 {
			add(p.opt, strconv.Itoa(int(p.v)))
		}
	}
	if f.State != "" {
		add("--state", f.State)
	}
	if s := f.statusNames(); s != "" {
		add("--status", s)
	}
	for _, z := range []struct {
		opt string
		v   *uint32
	}{{"--zone", f.Zone}, {"--orig-zone", f.OrigZone}, {"--reply-zone", f.ReplyZone}} {
		if z.v != nil {
			add(z.opt, num(*z.v))
		}
	}
	if f.Mark != nil {
		m := num(*f.Mark)
		if f.MarkMask != 0 {
			m += "/0x" + strconv.FormatUint(uint64(f.MarkMask), 16)
		}
		add("--mark", m)
	}
	for _, n := range []struct {
		opt string
		v   NATFilter
	}{{"--src-nat", f.SrcNAT}, {"--dst-nat", f.DstNAT}, {"--any-nat", f.AnyNAT}} {
		if n.v.Set {
			add(n.opt, map[bool]string{true: n.v.Addr.String(), false: ""}[n.v.Addr.IsValid()])
		}
	}
	if len(f.Labels) > 0 {
		add("-l", strings.Join(f.Labels, ","))
	}
	if f.TimeoutOver != nil {
		add("--timeout-over", num(*f.TimeoutOver))
	}
	return strings.Join(parts, " ")
}

// statusNames are -u's names of the status asked for, in one order.
func (f Filter) statusNames() string {
	var names []string
	for _, name := range []string{"EXPECTED", "SEEN_REPLY", "ASSURED", "FIXED_TIMEOUT", "OFFLOAD"} {
		if f.Status&statusBits[name] != 0 {
			names = append(names, name)
		}
	}
	if f.Unreplied {
		names = append(names, "UNREPLIED")
	}
	return strings.Join(names, ",")
}
