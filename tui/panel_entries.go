package tui

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
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
	case p.refused != "":
		for _, l := range wrapN("filter refused, "+foreign(p.refused), width, 3) { // the reason whole, not cut at the edge
			out = append(out, st.Crit.Render(l))
		}
	case p.err != nil:
		for _, l := range wrapN(foreign(p.err.Error()), width, 3) {
			out = append(out, st.Crit.Render(l))
		}
	case p.list == nil:
		out = append(out, st.Dim.Render("listing the table…"))
	}
	if p.following != nil {
		return followLines(st, p, width, rows, out)
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
		out = append(out, st.Label.Render("entries ")+st.Value.Render(units.Int(uint64(l.Matched)))+" match "+foreign(filter)+
			st.Dim.Render(fmt.Sprintf(" · %s established · by %s · s sort, S reverse, / filter, f follow, D delete, esc close", units.Int(uint64(l.Established)), order)))
		for _, f := range l.Rows() {
			if len(out) >= rows {
				break
			}
			out = append(out, truncate(entryRow(f), width))
		}
	}
	return out[:min(len(out), rows)]
}

// followLines are the panel while it follows: what the follow counted
// since it started, what the kernel's buffer made it lose, then the
// events newest first, each + made or − ended.
func followLines(st *styles.Styles, p entriesPanel, width, rows int, out []string) []string {
	f := p.follow
	if f == nil {
		return append(out, st.Dim.Render("joining the table's events…"))[:min(len(out)+1, rows)]
	}
	head := st.Label.Render("following ") + foreign(describeFilter(f.Filter)) + st.Dim.Render(" since "+f.Since.Format("15:04:05")+" · ") +
		st.Value.Render(units.Int(f.New)) + " new · " + st.Value.Render(units.Int(f.Gone)) + " ended"
	switch {
	case p.followFailed:
		head += " · " + st.Crit.Render("the event socket failed: nothing since is shown")
	case f.Lost > 0:
		head += " · " + st.Warn.Render(units.Int(f.Lost)+" lost (the kernel's event buffer overflowed)")
	default:
		head += st.Dim.Render(" · none lost")
	}
	out = append(out, truncate(head, width)+st.Dim.Render(" · f stops"))
	switch f.Events {
	case 0:
		out = append(out, st.Warn.Render(truncate("nf_conntrack_events is 0: the kernel reports no entry made or ended (sysctl -w net.netfilter.nf_conntrack_events=2)", width)))
	case 2:
		out = append(out, st.Dim.Render(truncate("entries made before a listener joined end unreported (nf_conntrack_events 2, the kernel's default): ended counts the rest", width)))
	}
	if len(f.Recent) == 0 {
		out = append(out, st.Dim.Render("no entry made or ended yet"))
	}
	for i := len(f.Recent) - 1; i >= 0 && len(out) < rows; i-- {
		e := f.Recent[i]
		sign := "+"
		if e.Gone {
			sign = "−"
		}
		out = append(out, truncate(e.At.Format("15:04:05")+" "+sign+" "+entryRow(e.Flow), width))
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
		return foreign(a.String())
	}
	return foreign(netip.AddrPortFrom(a, port).String()) // a zone is any text
}
