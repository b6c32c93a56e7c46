package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// ruleListenOverflow: a listen queue overflowed (ListenOverflows or
// ListenDrops rose): a local server accepts slower than connections
// arrive. Critical. The fullest listener is named, and what limited its
// owner's lookup.
func ruleListenOverflow(in Inputs) (Verdict, bool) {
	r := in.Rates
	if !r.Known(PartTCP) || (r.ListenOverflowsPS == 0 && r.ListenDropsPS == 0) {
		return Verdict{}, false
	}
	ev := fmt.Sprintf("%s listen overflows/s, %s listen drops/s: a server accepts slower than connections arrive (raise its backlog and somaxconn)",
		units.Num(r.ListenOverflowsPS), units.Num(r.ListenDropsPS))
	if ls := in.Sample.Listeners; ls != nil && len(ls.Pressed) > 0 {
		ev += "; fullest: " + ls.Pressed[0].String(ls.Somaxconn)
		if n := len(ls.Pressed) - 1; n > 0 {
			ev += fmt.Sprintf(" (and %d more)", n)
		}
		if ls.Note != "" {
			ev += "; " + ls.Note
		}
	}
	return Verdict{Evidence: ev}, true
}

// rulePortExhaustion: the sockets this host opened towards one
// destination from one source address hold 90 % of the local port range:
// connect() to it fails with EADDRNOTAVAIL once they are all taken. Ports
// are per destination (the 4-tuple must be unique), and an accepted
// connection takes none, so the host's TIME_WAIT and established totals
// measure nothing here: only the sockets' own tuples (Sample.Ports) are
// judged. Warning.
func rulePortExhaustion(in Inputs) (Verdict, bool) {
	t, u := in.Sample.TCP, in.Sample.Ports
	lo, hi := t.PortRange[0], t.PortRange[1]
	if hi <= lo || u == nil || len(u.Dests) == 0 {
		return Verdict{}, false
	}
	ports := hi - lo + 1
	top := u.Dests[0]
	if float64(top.Ports) < PortExhaustFrac*float64(ports) {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s of the %s local ports (%d-%d) are taken by sockets from %s to %s (%s in TIME_WAIT): connect() to it fails once they are all taken, whatever the host's totals; widen ip_local_port_range, add source addresses, reuse connections, tcp_tw_reuse for outbound, IP_BIND_ADDRESS_NO_PORT before bind()",
		units.Int(uint64(top.Ports)), units.Int(ports), lo, hi, Sanitize(top.Src, 46), Sanitize(top.Dst, 54), units.Int(uint64(top.TimeWait)))}, true
}
