package tuning

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// ProposeMax sizes the table for a working set: the next power of two
// that leaves at least half again as much room (17,100 → 32,768, as the
// write-up settled on), never below current.
func ProposeMax(workingSet, current uint64) uint64 {
	return max(current, NextPow2(workingSet+workingSet/2))
}

func num(m map[string]string, key string) uint64 {
	v, _ := strconv.ParseUint(strings.Fields(m[key] + " 0")[0], 10, 64)
	return v
}

// classKnobs are the timeouts a plan may lower, by the class they hold,
// and how low: each frees its class's entries soonest.
var classKnobs = map[model.Class]struct {
	key string
	to  uint64
}{
	model.ClassTCPDone:       {model.KnobTimeWait, 30},
	model.ClassUDPSingle:     {model.KnobUDPTimeout, 10},
	model.ClassTCPUnanswered: {model.KnobSynSent, 30},
	model.ClassTCPHalfOpen:   {model.KnobSynRecv, 10},
	model.ClassTCPLastAck:    {model.KnobLastAck, 10},
	// Only when stream entries fill the table: each is a flow that
	// answered twice (QUIC, WireGuard, RTP) and is held while it idles.
	model.ClassUDPStream: {model.KnobUDPStream, 60},
}

// ProposePlan computes the tuning from what was measured; only knobs
// whose proposal differs from the current value are listed. With classes
// known, the working set is Little's law by class on the demand (the
// class that fills the table takes what the others do not explain of the
// peak rate), after lowering the timeout of the class that fills it;
// without, the write-up's TCP arithmetic on the TIME_WAIT hold.
func ProposePlan(in Inputs) Plan {
	cur := in.Current
	hold := num(cur, model.KnobTimeWait)
	curMax := num(cur, model.KnobMax)
	var p Plan
	may := mayChange(in.Verdicts)
	add := func(key, proposed, why string) {
		if may != nil && !may[key] {
			return // a knob none of the moment's troubles is fixed by
		}
		if c, ok := cur[key]; ok && c != proposed {
			p.Changes = append(p.Changes, Change{Key: key, Current: c, Proposed: proposed, Why: why})
		}
	}
	var ws uint64
	var sizing string
	if top, ok := in.Fill.Churn(); ok {
		ws, sizing = proposeByClass(in, top, curMax, add)
	} else if top, ok := in.Fill.Top(); ok && top.Class.Standing() {
		// Standing connections fill it: no hold frees what is live, and
		// the TIME_WAIT arithmetic below would size on a class not there.
		ws, sizing = proposeByClass(in, top, curMax, add)
	} else {
		ws = model.WorkingSet(in.PeakRate, hold, in.Established)
		switch { // a rate not counted is never printed as a product of 0/s
		case in.PeakRate > 0:
			sizing = fmt.Sprintf("%s/s × %d s + %s open", units.Num(in.PeakRate), hold, units.Int(in.Established))
		case in.Established > 0:
			sizing = units.Int(in.Established) + " open"
		}
		if ceiling := model.Ceiling(ProposeMax(max(ws, in.PeakCount), curMax), hold); hold > 30 && ceiling > 0 && in.PeakRate >= 0.8*model.Ceiling(curMax, hold) {
			add(model.KnobTimeWait, "30", fmt.Sprintf("observed %s/s against a ceiling of %s/s (%s ÷ %d s): at 30 s the ceiling is %s/s%s",
				units.Num(in.PeakRate), units.Num(model.Ceiling(curMax, hold)), units.Int(curMax), hold, units.Num(model.Ceiling(ProposeMax(max(ws, in.PeakCount), curMax), 30)), rateFrom(in)))
		}
	}
	ws = max(ws, in.PeakCount)
	p.WorkingSet = ws
	newMax := ProposeMax(ws, curMax)
	if may != nil && !may[model.KnobMax] {
		newMax = curMax // not the fix: the buckets are sized on what the table holds
	}
	basis := "the peak count"
	if sizing != "" {
		basis = sizing + ", or the peak count"
	}
	add(model.KnobMax, strconv.FormatUint(newMax, 10), fmt.Sprintf(
		"peak working set %s (%s) × 1.5, next power of two%s%s", units.Int(ws), basis, rateFrom(in), standingNote(in)))
	buckets := num(cur, model.KnobHashsize)
	rule, ruleWhy := newMax, "1:1 with max, the kernel's own rule since 5.15"
	if !model.KernelAtLeast(in.Kernel, 5, 15) {
		rule, ruleWhy = newMax/4, "max ÷ 4, the rule before 5.15"
	}
	if newMax == curMax && hasKind(in.Verdicts, verdict.HashChains) { // as HASH CHAINS says
		rule, ruleWhy = model.BucketsFor(in.PeakCount+in.OtherEntries), "the next power of two at or above the peak count "+units.Int(in.PeakCount)+otherNote(in)+" (max is not the fix)"
	} else if shared := model.BucketsFor(ws + in.OtherEntries); in.OtherEntries > 0 && shared > rule {
		rule, ruleWhy = shared, "the next power of two at or above the working set with the other namespaces' entries (one hash for every namespace)"
	}
	newBuckets := max(buckets, rule)
	add(model.KnobHashsize, strconv.FormatUint(newBuckets, 10), fmt.Sprintf("%s: chain depth %.1f at the working set%s (only ever raised)",
		ruleWhy, model.ChainDepth(ws+in.OtherEntries, newBuckets), otherNote(in)))
	if hasKind(in.Verdicts, verdict.ListenOverflow) {
		add(model.KnobSomaxconn, strconv.FormatUint(max(num(cur, model.KnobSomaxconn), 4096), 10), "listen queues overflowed: 4,096 lets a burst wait instead of being dropped")
		add(model.KnobSynBacklog, strconv.FormatUint(max(num(cur, model.KnobSynBacklog), 8192), 10), "half-open connections during the burst: 8,192")
	}
	if hasKind(in.Verdicts, verdict.PortExhaustion) {
		add(model.KnobPortRange, "10240 65535", "one destination's sockets hold nearly every local port: 55,296 ports instead of the default 28,232, for each destination")
		add(model.KnobTwReuse, "1", "reuse TIME_WAIT ports for new outgoing connections when safe (timestamps)")
	}
	p.Cost = MemoryCost(newMax, newBuckets, in.EntryBytes, in.MemTotal)
	p.Cost.Namespaces = in.Namespaces
	SortChanges(p.Changes)
	return p
}

// otherNote says the other namespaces' entries a size counts with its
// own: " and the other namespaces' 9,000"; "" with none.
func otherNote(in Inputs) string {
	if in.OtherEntries == 0 {
		return ""
	}
	return " and the other namespaces' " + units.Int(in.OtherEntries)
}

// CostOf is the memory of the table as changes would leave it.
func CostOf(current map[string]string, changes []Change, entryBytes, memTotal uint64) Cost {
	v := map[string]string{}
	for k, x := range current {
		v[k] = x
	}
	for _, c := range changes {
		v[c.Key] = c.Proposed
	}
	return MemoryCost(num(v, model.KnobMax), num(v, model.KnobHashsize), entryBytes, memTotal)
}

// mayChange is the knobs the moment's troubles may change (their kinds'
// knobs, model.KindSpec); nil when nothing troubles it, and any knob may
// be proposed for headroom.
func mayChange(kinds []verdict.Kind) map[string]bool {
	var may map[string]bool
	for _, k := range kinds {
		spec, ok := model.SpecOf(k)
		if !ok || spec.Severity == verdict.SevOK {
			continue
		}
		if may == nil {
			may = map[string]bool{}
		}
		for _, knob := range spec.Knobs {
			may[knob] = true
		}
	}
	return may
}

func hasKind(ks []verdict.Kind, k verdict.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// proposeByClass lowers the timeout of the class that fills the table
// when it can be lowered, and returns the working set by class after it
// with the words of its arithmetic.
func proposeByClass(in Inputs, top model.ClassFill, curMax uint64, add func(key, proposed, why string)) (uint64, string) {
	var explained float64
	for _, cf := range in.Fill.Classes {
		explained += cf.RatePS
	}
	topRate := top.RatePS + max(0, in.PeakRate-explained) // the demand the table refused was the filling class's
	var ws float64
	var terms []string
	for _, cf := range in.Fill.Classes {
		rate, hold := cf.RatePS, cf.Hold
		if cf.Class == top.Class {
			rate = topRate
			k, ok := classKnobs[cf.Class]
			to := model.HoldOf(cf.Class, k.to, in.Kernel) // what the lowered knob holds on this kernel
			if ok && hold > to && (cf.Class != model.ClassTCPDone || rate >= 0.8*model.Ceiling(curMax, hold)) {
				shown := verdict.N("rate", rate, verdict.PerSecond).Printed() // the products are of the rate as printed
				at := fmt.Sprintf("%d s", k.to)
				if to != k.to {
					at += fmt.Sprintf(" (%d s with the %d s of SYN retries this kernel renews it by)", to, to-k.to)
				}
				why := fmt.Sprintf("%s: %s/s held %d s each need %s entries; at %s, %s%s", cf.Class.Describe(), units.Num(rate), hold,
					units.Int(uint64(shown*float64(hold)+0.5)), at, units.Int(uint64(shown*float64(to)+0.5)), rateFrom(in))
				if cf.Class == model.ClassTCPUnanswered && in.TopDest != "" {
					why += fmt.Sprintf("; %s never answers: the fix is there, not in the table", in.TopDest)
				}
				add(k.key, strconv.FormatUint(k.to, 10), why)
				hold = to
			}
		}
		if cf.Class.Standing() {
			ws += float64(cf.Entries)
			terms = append(terms, fmt.Sprintf("%s standing open", units.Int(cf.Entries)))
			continue
		}
		ws += rate * float64(hold)
		if rate > 0 {
			terms = append(terms, fmt.Sprintf("%s %s/s × %d s", cf.Class, units.Num(rate), hold))
		}
	}
	return uint64(ws + 0.5), strings.Join(terms, " + ")
}

// rateFrom says where the plan's rate was measured when it is not the
// rate the header and the verdict show now.
func rateFrom(in Inputs) string {
	if in.RateFrom == "" || in.PeakRate <= 0 {
		return ""
	}
	return fmt.Sprintf("; %s/s is %s", units.Num(in.PeakRate), in.RateFrom)
}

// standingNote names what holds a table that standing connections fill:
// a timeout frees nothing live, so none is proposed, but the entries idle
// over an hour and those in CLOSE_WAIT are named with the timeout that
// holds them. Empty when standing connections do not fill it.
func standingNote(in Inputs) string {
	top, ok := in.Fill.Top()
	if !ok || !top.Class.Standing() {
		return ""
	}
	note := "; standing connections: a timeout frees nothing that is live"
	c := in.Census
	if c == nil {
		return note
	}
	if c.IdleCounted && c.IdleOpen > 0 {
		note += fmt.Sprintf("; %s of them idle over an hour, held by nf_conntrack_tcp_timeout_established (%s s): lowering it frees those, and forgets connections that may still be alive",
			units.Int(uint64(c.IdleOpen)), units.Int(top.Hold))
	}
	if cw := c.TCPState[model.TCPStates[model.TCPCloseWait]]; cw > 0 {
		note += fmt.Sprintf("; %s in CLOSE_WAIT: their peers closed and the application has not (nf_conntrack_tcp_timeout_close_wait holds each after its last packet)",
			units.Int(uint64(cw)))
	}
	return note
}
