package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// InvalidPS is how many packets a second conntrack must find invalid
// before INVALID holds: a late retransmit after TIME_WAIT is invalid now
// and then on any host.
const InvalidPS = 1.0

// ruleInvalid: conntrack's trackers found packets invalid (out of the TCP
// window, a flow picked up mid-stream after a flush with
// nf_conntrack_tcp_loose 0, a malformed header) at InvalidPS or more. A
// ruleset that drops ct state invalid (kube-proxy's does) stalls or
// resets those connections; a tracker that drops them itself counts
// them in drop too, which is not a full table. Warning.
func ruleInvalid(in Inputs) (Verdict, bool) {
	r := in.Rates
	n := r.CTTotal.Get(Invalid)
	secs := r.Elapsed.Seconds()
	if secs <= 0 || float64(n)/secs < InvalidPS {
		return Verdict{}, false
	}
	dropped := ""
	if d := trackerDrops(in); d > 0 {
		dropped = fmt.Sprintf("; %s of them dropped by the tracker itself (counted in drop with the table at %s of %s: not a full table)",
			units.Int(d), units.Int(in.Sample.Conntrack.Count), units.Int(in.Sample.Conntrack.Max))
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s packets/s conntrack found invalid (%s in the interval)%s: out of the TCP window, or flows it lost track of; a ruleset dropping ct state invalid stalls or resets them",
		units.Num(float64(n)/secs), units.Int(n), dropped)}, true
}

// trackerDrops are the interval's drops a protocol tracker made, not a
// full table: drop rose with invalid beside it while the table is not
// pinned and the kernel logged no "table full" line, as many as invalid
// explains. 0 when the table may have been full.
func trackerDrops(in Inputs) uint64 {
	r := in.Rates
	full := r.FullDrops()
	if full == 0 || Pinned(in.Sample.Conntrack) || kernelSaidFull(in.Sample.Kernel) {
		return 0
	}
	return min(full, r.CTTotal.Get(Invalid))
}

// kernelSaidFull reports whether the sample carries a "table full" line
// of the kernel's: the full table's own witness.
func kernelSaidFull(k KernelLog) bool { return len(k.Lines) > 0 }
