package model

import "fmt"

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
		Num(r.ListenOverflowsPS), Num(r.ListenDropsPS))
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

// rulePortExhaustion: sockets in TIME_WAIT plus established connections
// reach 90 % of the local port range: new outgoing connections may fail
// with EADDRNOTAVAIL. Warning.
func rulePortExhaustion(in Inputs) (Verdict, bool) {
	t := in.Sample.TCP
	lo, hi := t.PortRange[0], t.PortRange[1]
	if hi <= lo || in.Sample.Absent.Has(PartTCP) {
		return Verdict{}, false
	}
	ports := hi - lo + 1
	used := t.TimeWait + t.Established
	if float64(used) < PortExhaustFrac*float64(ports) {
		return Verdict{}, false
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s sockets in TIME_WAIT and %s established against %s local ports (%d-%d): outgoing connects may fail",
		Int(t.TimeWait), Int(t.Established), Int(ports), lo, hi)}, true
}
