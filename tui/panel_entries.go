package tui

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/styles"
)

// entriesLines are the panel: what matched and how it is sorted, the
// filter being typed, then one entry a row — protocol, TCP state,
// seconds left, the original tuple, where a NAT changed the reply, and
// the flags.
func entriesLines(st *styles.Styles, p entriesPanel, width, rows int) []string {
	var out []string
	switch {
	case p.asking != "":
		out = append(out, st.Warn.Render(truncate(foreign(p.asking), width)))
	case p.editing:
		out = append(out, st.Label.Render("filter ")+foreign(p.typing)+"▏"+st.Dim.Render("  conntrack's words: -p udp --dport 53 --src 10.0.0.0/8; enter applies, esc keeps the last"))
	case p.err != nil:
		out = append(out, st.Crit.Render(truncate(foreign(p.err.Error()), width)))
	case p.list == nil:
		out = append(out, st.Dim.Render("listing the table…"))
	}
	if l := p.list; l != nil {
		filter := l.Filter.String()
		if filter == "" {
			filter = "no filter"
		}
		order := l.Sort
		if l.Desc {
			order += " descending"
		}
		out = append(out, st.Label.Render("entries ")+st.Value.Render(model.Int(uint64(l.Matched)))+" match "+foreign(filter)+
			st.Dim.Render(fmt.Sprintf(" · %s established · by %s · s sort, S reverse, / filter, D delete, esc close", model.Int(uint64(l.Established)), order)))
		for _, f := range l.Rows() {
			if len(out) >= rows {
				break
			}
			out = append(out, truncate(entryRow(f), width))
		}
	}
	return out[:min(len(out), rows)]
}

// entryRow is one entry in a line.
func entryRow(f model.Flow) string {
	state := "-"
	if f.TCPState >= 0 && f.TCPState < len(model.TCPStates) {
		state = model.TCPStates[f.TCPState]
	}
	proto := strings.TrimSuffix(model.DestKey(f.Proto, 0), "/0")
	s := fmt.Sprintf("%-4s %-11s %7d  %s → %s", proto, state, f.Timeout, hostPort(f.Src, f.SrcPort), hostPort(f.Dst, f.DstPort))
	if f.ReplySrc.IsValid() && (f.ReplySrc != f.Dst || f.ReplySrcPort != f.DstPort) {
		s += "  DNAT to " + hostPort(f.ReplySrc, f.ReplySrcPort)
	}
	if f.ReplyDst.IsValid() && (f.ReplyDst != f.Src || f.ReplyDstPort != f.SrcPort) {
		s += "  SNAT as " + hostPort(f.ReplyDst, f.ReplyDstPort)
	}
	if f.Status&model.StatusAssured != 0 {
		s += "  assured"
	}
	if f.Status&model.StatusSeenReply == 0 {
		s += "  unreplied"
	}
	if f.Zone != 0 {
		s += fmt.Sprintf("  zone %d", f.Zone)
	}
	if f.Mark != 0 {
		s += fmt.Sprintf("  mark %d", f.Mark)
	}
	if f.Accounted {
		s += fmt.Sprintf("  %d/%d packets", f.Packets[0], f.Packets[1])
	}
	return s
}

// hostPort is addr:port, or the address alone for a protocol without
// ports.
func hostPort(a netip.Addr, port uint16) string {
	if !a.IsValid() {
		return "?"
	}
	if port == 0 {
		return a.String()
	}
	return netip.AddrPortFrom(a, port).String()
}
