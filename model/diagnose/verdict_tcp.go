package diagnose

import (
	"strconv"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleListenOverflow: a listen queue overflowed (ListenOverflows or
// ListenDrops rose): a local server accepts slower than connections
// arrive. Critical. The fullest listener is named, and what limited its
// owner's lookup.
func ruleListenOverflow(in Inputs) (verdict.Verdict, bool) {
	r := in.Rates
	if !r.Known(model.PartTCP) || (r.ListenOverflowsPS == 0 && r.ListenDropsPS == 0) {
		return verdict.Verdict{}, false
	}
	host := hostInterval(in)
	cs := []verdict.Clause{
		say(verdict.Lead, "listen",
			verdict.N("overflows", r.ListenOverflowsPS, verdict.PerSecond).From("TcpExtListenOverflows (/proc/net/netstat)", host),
			verdict.N("listen drops", r.ListenDropsPS, verdict.PerSecond).From("TcpExtListenDrops (/proc/net/netstat)", host)),
		say(verdict.Explain, "listen.meaning").After(": "),
		say(verdict.Fix, "listen.fix").After(" "),
	}
	if ls := in.Sample.Listeners; ls != nil && len(ls.Pressed) > 0 {
		cs = append(cs, ls.Pressed[0].Clauses(ls.Somaxconn, true)...)
		if n := len(ls.Pressed) - 1; n > 0 {
			cs = append(cs, say(verdict.Who, "listen.more", verdict.N("more", n, verdict.Number).From("the listeners read", "the host")).After(" "))
		}
		if ls.Note != "" {
			cs = append(cs, say(verdict.Explain, "listen.note", verdict.W("note", safe.Text(ls.Note, 200))))
		}
	}
	return says(cs...), true
}

// rulePortExhaustion: the sockets this host opened towards one
// destination from one source address hold 90 % of the local port range:
// connect() to it fails with EADDRNOTAVAIL once they are all taken. Ports
// are per destination (the 4-tuple must be unique), and an accepted
// connection takes none, so the host's TIME_WAIT and established totals
// measure nothing here: only the sockets' own tuples (Sample.Ports) are
// judged. Warning.
func rulePortExhaustion(in Inputs) (verdict.Verdict, bool) {
	t, u := in.Sample.TCP, in.Sample.Ports
	lo, hi := t.PortRange[0], t.PortRange[1]
	if hi <= lo || u == nil || len(u.Dests) == 0 {
		return verdict.Verdict{}, false
	}
	ports := hi - lo + 1
	top := u.Dests[0]
	if float64(top.Ports) < PortExhaustFrac*float64(ports) {
		return verdict.Verdict{}, false
	}
	scope := "the sockets from " + safe.Text(top.Src, 46) + " to " + safe.Text(top.Dst, 54)
	return says(
		say(verdict.Lead, "ports",
			verdict.N("taken", top.Ports, verdict.Number).From("the sockets' tuples (ss -tan)", scope),
			verdict.N("ports", ports, verdict.Number).From("net.ipv4.ip_local_port_range", "the host"),
			verdict.W("low", strconv.FormatUint(lo, 10)), verdict.W("high", strconv.FormatUint(hi, 10)),
			verdict.W("src", safe.Text(top.Src, 46)), verdict.W("dst", safe.Text(top.Dst, 54)),
			verdict.N("time wait", top.TimeWait, verdict.Number).From("the sockets' states (ss -tan)", scope)),
		say(verdict.Explain, "ports.meaning").After(": "),
		say(verdict.Fix, "ports.fix")), true
}
