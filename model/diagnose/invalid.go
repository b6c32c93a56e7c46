package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
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
func ruleInvalid(in Inputs) (verdict.Verdict, bool) {
	r := in.Rates
	n := r.CTTotal.Get(model.Invalid)
	secs := r.Elapsed.Seconds()
	if secs <= 0 || float64(n)/secs < InvalidPS {
		return verdict.Verdict{}, false
	}
	c := in.Sample.Conntrack
	cs := []verdict.Clause{say(verdict.Lead, "invalid",
		verdict.N("invalid/s", float64(n)/secs, verdict.PerSecond).From("conntrack -S invalid, summed over CPUs", intervalOf(in)), factCounter(in, model.Invalid))}
	if d := trackerDrops(in); d > 0 {
		cs = append(cs, say(verdict.Numbers, "invalid.dropped",
			verdict.N("by tracker", d, verdict.Packets).From("conntrack -S drop beside invalid, the table not full", intervalOf(in)), model.FactCount(c), model.FactMax(c)))
	}
	return says(append(cs, say(verdict.Explain, "invalid.meaning").After(": "))...), true
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
	return min(full, r.CTTotal.Get(model.Invalid))
}

// kernelSaidFull reports whether the sample carries a "table full" line
// of the kernel's: the full table's own witness.
func kernelSaidFull(k model.KernelLog) bool { return len(k.Lines) > 0 }
