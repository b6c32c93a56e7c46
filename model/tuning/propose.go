package tuning

import (
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
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
	model.ClassTCPDone:       {knob.TimeWait, 30},
	model.ClassUDPSingle:     {knob.UDPTimeout, 10},
	model.ClassTCPUnanswered: {knob.SynSent, 30},
	model.ClassTCPHalfOpen:   {knob.SynRecv, 10},
	model.ClassTCPLastAck:    {knob.LastAck, 10},
	// Only when stream entries fill the table: each is a flow that
	// answered twice (QUIC, WireGuard, RTP) and is held while it idles.
	model.ClassUDPStream: {knob.UDPStream, 60},
}

// ProposePlan computes the tuning from what was measured; only knobs
// whose proposal differs from the current value are listed. With classes
// known, the working set is Little's law by class on the demand (the
// class that fills the table takes what the others do not explain of the
// peak rate), after lowering the timeout of the class that fills it;
// without, the write-up's TCP arithmetic on the TIME_WAIT hold. Every
// reason's numbers are facts, its products and sums of them as printed.
func ProposePlan(in Inputs) Plan {
	cur := in.Current
	hold := num(cur, knob.TimeWait)
	curMax := num(cur, knob.Max)
	var p Plan
	may := mayChange(in.Verdicts)
	add := func(key, proposed string, why verdict.Clause) {
		if may != nil && !may[key] {
			return // a knob none of the moment's troubles is fixed by
		}
		if c, ok := cur[key]; ok && c != proposed {
			p.Changes = append(p.Changes, Change{Key: key, Current: c, Proposed: proposed, Why: why})
		}
	}
	var sized verdict.Fact // the working set the classes or the TIME_WAIT arithmetic need
	var sizing reason
	if top, ok := in.Fill.Churn(); ok {
		sized, sizing = proposeByClass(in, top, curMax, add)
	} else if top, ok := in.Fill.Top(); ok && top.Class.Standing() {
		// Standing connections fill it: no hold frees what is live, and
		// the TIME_WAIT arithmetic below would size on a class not there.
		sized, sizing = proposeByClass(in, top, curMax, add)
	} else {
		sized, sizing = sizeByTimeWait(in, hold, curMax, add)
	}
	peak := verdict.N("peak count", in.PeakCount, verdict.Entries).From("the highest nf_conntrack_count read", "this table, the frames measured")
	ws := max(uint64(sized.Value), in.PeakCount)
	p.WorkingSet = ws
	newMax := ProposeMax(ws, curMax)
	if may != nil && !may[knob.Max] {
		newMax = curMax // not the fix: the buckets are sized on what the table holds
	}
	var why reason
	switch {
	case len(sizing) == 0:
		why.say("plan.ws.peak", peak)
	case uint64(sized.Value) >= in.PeakCount:
		why.say("plan.ws.sized", sized)
		why = append(append(why, sizing...), verdict.Part{Key: "plan.ws.sized.end"})
	default: // the table held more than the classes' arithmetic says it needs
		why.say("plan.ws.over", peak)
		why = append(append(why, sizing...), verdict.Part{Key: "plan.ws.over.end", Facts: []verdict.Fact{sized}})
	}
	why.say("plan.ws.headroom")
	rateFrom(in, &why)
	standingNote(in, &why)
	add(knob.Max, strconv.FormatUint(newMax, 10), why.clause("plan.max"))
	newBuckets, hw := proposeBuckets(in, newMax, curMax, ws, peak)
	add(knob.Hashsize, strconv.FormatUint(newBuckets, 10), hw.clause("plan.hashsize"))
	if hasKind(in.Verdicts, verdict.ListenOverflow) {
		add(knob.Somaxconn, strconv.FormatUint(max(num(cur, knob.Somaxconn), 4096), 10), say(verdict.Numbers, "plan.somaxconn"))
		add(knob.SynBacklog, strconv.FormatUint(max(num(cur, knob.SynBacklog), 8192), 10), say(verdict.Numbers, "plan.syn-backlog"))
	}
	if hasKind(in.Verdicts, verdict.PortExhaustion) {
		add(knob.PortRange, "10240 65535", say(verdict.Numbers, "plan.port-range"))
		add(knob.TwReuse, "1", say(verdict.Numbers, "plan.tw-reuse"))
	}
	p.Cost = MemoryCost(newMax, newBuckets, in.EntryBytes, in.MemTotal)
	p.Cost.Namespaces = in.Namespaces
	SortChanges(p.Changes)
	return p
}

// sizeByTimeWait is the write-up's TCP arithmetic when no class is
// known: the peak rate held by the TIME_WAIT hold, and the open
// connections; it proposes the shorter hold when the rate nears the
// ceiling.
func sizeByTimeWait(in Inputs, hold, curMax uint64, add func(key, proposed string, why verdict.Clause)) (sized verdict.Fact, sizing reason) {
	open := verdict.N("open", in.Established, verdict.Entries).From("established TCP sockets", "the host")
	switch { // a rate not counted is never printed as a product of 0/s
	case in.PeakRate > 0:
		rate := rateFact(in)
		tw := verdict.N("hold", hold, verdict.Seconds).From(knob.TimeWait, "the host")
		sized = verdict.Sum("sized", verdict.Entries, verdict.Times("product", verdict.Entries, rate, tw), open)
		sizing.say("plan.sizing.time-wait", rate, tw, open)
	case in.Established > 0:
		sized = verdict.Sum("sized", verdict.Entries, open)
		sizing.say("plan.sizing.open", open)
	}
	if ceiling := arith.Ceiling(ProposeMax(max(uint64(sized.Value), in.PeakCount), curMax), hold); hold > 30 && ceiling > 0 && in.PeakRate >= 0.8*arith.Ceiling(curMax, hold) {
		var r reason
		rate, maxF := rateFact(in), verdict.N("max", curMax, verdict.Entries).From(knob.Max, "the host")
		tw := verdict.N("hold", hold, verdict.Seconds).From(knob.TimeWait, "the host")
		at30 := verdict.N("at 30 s", 30, verdict.Seconds).From("the proposed "+knob.TimeWait, "the host")
		r.say("plan.time-wait.ceiling",
			rate, verdict.Over("ceiling", verdict.PerSecond, maxF, tw), maxF, tw,
			verdict.Over("ceiling at 30", verdict.PerSecond, verdict.N("new max", ProposeMax(max(uint64(sized.Value), in.PeakCount), curMax), verdict.Entries), at30))
		rateFrom(in, &r)
		add(knob.TimeWait, "30", r.clause("plan.time-wait"))
	}
	return sized, sizing
}

// proposeBuckets is the hashsize for a table of newMax holding ws, by
// the kernel's own rule (or HASH CHAINS's, sized on what the table holds
// when max is not the fix), never lowered, with its reason.
func proposeBuckets(in Inputs, newMax, curMax, ws uint64, peak verdict.Fact) (uint64, reason) {
	cur := in.Current
	buckets := num(cur, knob.Hashsize)
	rule, ruleWhy := newMax, "plan.buckets.rule"
	if !model.KernelAtLeast(in.Kernel, 5, 15) {
		rule, ruleWhy = newMax/4, "plan.buckets.rule-old"
	}
	var hw reason
	if newMax == curMax && hasKind(in.Verdicts, verdict.HashChains) { // as HASH CHAINS says
		var doubled bool
		if rule, doubled = diagnose.ChainBuckets(in.PeakCount+in.OtherEntries, buckets); doubled {
			hw.say("plan.buckets.twice", peak)
			otherNote(in, &hw)
			hw.say("plan.buckets.twice.why")
		} else {
			hw.say("plan.buckets.peak", peak)
			otherNote(in, &hw)
			hw.say("plan.buckets.not-max")
		}
	} else if shared := diagnose.BucketsFor(ws + in.OtherEntries); in.OtherEntries > 0 && shared > rule {
		rule = shared
		hw.say("plan.buckets.shared")
	} else {
		hw.say(ruleWhy)
	}
	newBuckets := max(buckets, rule)
	hw.say("plan.buckets.depth", verdict.N("depth", arith.ChainDepth(ws+in.OtherEntries, newBuckets), verdict.Ratio).From("2 × the working set ÷ the buckets", "this table"))
	if in.OtherEntries > 0 && !hw.said("plan.others") {
		otherNote(in, &hw)
	}
	hw.say("plan.buckets.raised")
	return newBuckets, hw
}

// rateFact is the plan's rate of new entries, with where it was read.
func rateFact(in Inputs) verdict.Fact {
	source := "the peak rate of new entries"
	if in.RateFrom != "" {
		source = in.RateFrom
	}
	return verdict.N("rate", in.PeakRate, verdict.PerSecond).From(source, "this table, the frames measured")
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
	return MemoryCost(num(v, knob.Max), num(v, knob.Hashsize), entryBytes, memTotal)
}

// mayChange is the knobs the moment's troubles may change (their kinds'
// knobs, diagnose.KindSpec); nil when nothing troubles it, and any knob may
// be proposed for headroom.
func mayChange(kinds []verdict.Kind) map[string]bool {
	var may map[string]bool
	for _, k := range kinds {
		spec, ok := diagnose.SpecOf(k)
		if !ok || spec.Severity == verdict.SevOK {
			continue
		}
		if may == nil {
			may = map[string]bool{}
		}
		for _, name := range spec.Knobs {
			may[name] = true
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
// (a sum of its classes' products, as printed) with the words of its
// arithmetic.
func proposeByClass(in Inputs, top diagnose.ClassFill, curMax uint64, add func(key, proposed string, why verdict.Clause)) (verdict.Fact, reason) {
	var explained float64
	for _, cf := range in.Fill.Classes {
		explained += cf.RatePS
	}
	topRate := top.RatePS + max(0, in.PeakRate-explained) // the demand the table refused was the filling class's
	var terms []verdict.Fact
	var sizing reason
	for i, cf := range in.Fill.Classes {
		rate, hold := cf.RatePS, cf.Hold
		held := "the " + cf.Class.HoldState() + " timeout"
		if cf.Class == top.Class {
			rate = topRate
			k, ok := classKnobs[cf.Class]
			to := model.HoldOf(cf.Class, k.to, in.Kernel) // what the lowered knob holds on this kernel
			if ok && hold > to && (cf.Class != model.ClassTCPDone || rate >= 0.8*arith.Ceiling(curMax, hold)) {
				var r reason
				rf := verdict.N("rate", rate, verdict.PerSecond).From("new entries of the class, with the demand refused", "this table, the frames measured")
				now := verdict.N("hold", hold, verdict.Seconds).From(k.key, "the host")
				then := verdict.N("lowered", to, verdict.Seconds).From("the proposed "+k.key+" on this kernel", "the host")
				r.say("plan.class", verdict.W("class", cf.Class.Describe()), rf, now, verdict.Times("need", verdict.Entries, rf, now))
				if to != k.to {
					r.say("plan.class.retries", verdict.N("proposed", k.to, verdict.Seconds).From("the proposed "+k.key, "the host"), then,
						verdict.N("retries", to-k.to, verdict.Seconds).From("this kernel's SYN retry schedule", "this kernel"))
				} else {
					r.say("plan.class.lowered", then)
				}
				r.say("plan.class.need-then", verdict.Times("need then", verdict.Entries, rf, then))
				rateFrom(in, &r)
				if cf.Class == model.ClassTCPUnanswered && in.TopDest != "" {
					r.say("plan.class.no-answer", verdict.W("dest", safe.Text(in.TopDest, 64)))
				}
				add(k.key, strconv.FormatUint(k.to, 10), r.clause("plan.class-timeout"))
				hold, held = to, "the proposed "+k.key
			}
		}
		n := strconv.Itoa(i)
		var term verdict.Part
		if cf.Class.Standing() {
			f := verdict.N("standing", cf.Entries, verdict.Entries).From("the class's entries", "this table")
			term = verdict.Part{Key: "plan.sum.standing", Facts: []verdict.Fact{f}, Nth: n}
			f.Name += " " + n // as the composed clause prints it
			terms = append(terms, f)
		} else if rate > 0 {
			rf := verdict.N("rate", rate, verdict.PerSecond).From("new entries of the class", "this table, the frames measured")
			hf := verdict.N("hold", hold, verdict.Seconds).From(held, "the host")
			term = verdict.Part{Key: "plan.sum.term", Facts: []verdict.Fact{verdict.W("class", cf.Class.String()), rf, hf}, Nth: n}
			rf.Name, hf.Name = rf.Name+" "+n, hf.Name+" "+n // as the composed clause prints them
			terms = append(terms, verdict.Times("product "+n, verdict.Entries, rf, hf))
		} else {
			continue
		}
		if len(sizing) > 0 {
			sizing.say("plan.sum.plus")
		}
		sizing = append(sizing, term)
	}
	return verdict.Sum("sized", verdict.Entries, terms...), sizing
}
