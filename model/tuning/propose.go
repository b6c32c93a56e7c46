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

// reason builds a change's words and the facts they print.
type reason struct {
	t string
	f []verdict.Fact
}

// say adds words whose {name}s are facts.
func (r *reason) say(t string, facts ...verdict.Fact) {
	r.t += t
	r.f = append(r.f, facts...)
}

// clause is the reason as the change carries it.
func (r reason) clause(key string) verdict.Clause {
	return verdict.Say(verdict.Numbers, key, r.t, r.f...)
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
	case sizing.t == "":
		why.say("peak working set {peak count} (the peak count)", peak)
	case uint64(sized.Value) >= in.PeakCount:
		why.say("peak working set {sized} ("+sizing.t+")", append(sizing.f, sized)...)
	default: // the table held more than the classes' arithmetic says it needs
		why.say("peak working set {peak count} (the peak count; "+sizing.t+" needs {sized})", append(append([]verdict.Fact{peak}, sizing.f...), sized)...)
	}
	why.say(" × 1.5, next power of two")
	rateFrom(in, &why)
	standingNote(in, &why)
	add(knob.Max, strconv.FormatUint(newMax, 10), why.clause("plan.max"))
	newBuckets, hw := proposeBuckets(in, newMax, curMax, ws, peak)
	add(knob.Hashsize, strconv.FormatUint(newBuckets, 10), hw.clause("plan.hashsize"))
	if hasKind(in.Verdicts, verdict.ListenOverflow) {
		add(knob.Somaxconn, strconv.FormatUint(max(num(cur, knob.Somaxconn), 4096), 10), verdict.Say(verdict.Numbers, "plan.somaxconn", "listen queues overflowed: 4,096 lets a burst wait instead of being dropped"))
		add(knob.SynBacklog, strconv.FormatUint(max(num(cur, knob.SynBacklog), 8192), 10), verdict.Say(verdict.Numbers, "plan.syn-backlog", "half-open connections during the burst: 8,192"))
	}
	if hasKind(in.Verdicts, verdict.PortExhaustion) {
		add(knob.PortRange, "10240 65535", verdict.Say(verdict.Numbers, "plan.port-range", "one destination's sockets hold nearly every local port: 55,296 ports instead of the default 28,232, for each destination"))
		add(knob.TwReuse, "1", verdict.Say(verdict.Numbers, "plan.tw-reuse", "reuse TIME_WAIT ports for new outgoing connections when safe (timestamps)"))
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
		sizing.say("{rate}/s × {hold} + {open} open", rate, tw, open)
	case in.Established > 0:
		sized = verdict.Sum("sized", verdict.Entries, open)
		sizing.say("{open} open", open)
	}
	if ceiling := arith.Ceiling(ProposeMax(max(uint64(sized.Value), in.PeakCount), curMax), hold); hold > 30 && ceiling > 0 && in.PeakRate >= 0.8*arith.Ceiling(curMax, hold) {
		var r reason
		rate, maxF := rateFact(in), verdict.N("max", curMax, verdict.Entries).From(knob.Max, "the host")
		tw := verdict.N("hold", hold, verdict.Seconds).From(knob.TimeWait, "the host")
		at30 := verdict.N("at 30 s", 30, verdict.Seconds).From("the proposed "+knob.TimeWait, "the host")
		r.say("observed {rate}/s against a ceiling of {ceiling}/s ({max} ÷ {hold}): at 30 s the ceiling is {ceiling at 30}/s",
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
	rule, ruleWhy := newMax, "1:1 with max, the kernel's own rule since 5.15"
	if !model.KernelAtLeast(in.Kernel, 5, 15) {
		rule, ruleWhy = newMax/4, "max ÷ 4, the rule before 5.15"
	}
	var hw reason
	if newMax == curMax && hasKind(in.Verdicts, verdict.HashChains) { // as HASH CHAINS says
		var doubled bool
		if rule, doubled = diagnose.ChainBuckets(in.PeakCount+in.OtherEntries, buckets); doubled {
			hw.say("twice the buckets: they outnumber the peak count {peak count}", peak)
			otherNote(in, &hw)
			hw.say(", so the long chains are of entries not read here or of flows that hash alike (max is not the fix)")
		} else {
			hw.say("the next power of two at or above the peak count {peak count}", peak)
			otherNote(in, &hw)
			hw.say(" (max is not the fix)")
		}
	} else if shared := diagnose.BucketsFor(ws + in.OtherEntries); in.OtherEntries > 0 && shared > rule {
		rule = shared
		hw.say("the next power of two at or above the working set with the other namespaces' entries (one hash for every namespace)")
	} else {
		hw.say(ruleWhy)
	}
	newBuckets := max(buckets, rule)
	hw.say(": chain depth {depth} at the working set", verdict.N("depth", arith.ChainDepth(ws+in.OtherEntries, newBuckets), verdict.Ratio).From("2 × the working set ÷ the buckets", "this table"))
	if in.OtherEntries > 0 && !strings.Contains(hw.t, "{others}") {
		otherNote(in, &hw)
	}
	hw.say(" (only ever raised)")
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

// otherNote says the other namespaces' entries a size counts with its
// own: " and the other namespaces' 9,000"; nothing with none.
func otherNote(in Inputs, r *reason) {
	if in.OtherEntries == 0 {
		return
	}
	r.say(" and the other namespaces' {others}", verdict.N("others", in.OtherEntries, verdict.Entries).From("the other namespaces' nf_conntrack_count", "every other namespace"))
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
	var words []string
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
				r.say(cf.Class.Describe()+": {rate}/s held {hold} each need {need} entries; at ", rf, now, verdict.Times("need", verdict.Entries, rf, now))
				if to != k.to {
					r.say("{proposed} ({lowered} with the {retries} of SYN retries this kernel renews it by)", verdict.N("proposed", k.to, verdict.Seconds).From("the proposed "+k.key, "the host"), then,
						verdict.N("retries", to-k.to, verdict.Seconds).From("this kernel's SYN retry schedule", "this kernel"))
				} else {
					r.say("{lowered}", then)
				}
				r.say(", {need then}", verdict.Times("need then", verdict.Entries, rf, then))
				rateFrom(in, &r)
				if cf.Class == model.ClassTCPUnanswered && in.TopDest != "" {
					r.say("; {dest} never answers: the fix is there, not in the table", verdict.W("dest", safe.Text(in.TopDest, 64)))
				}
				add(k.key, strconv.FormatUint(k.to, 10), r.clause("plan.class-timeout"))
				hold, held = to, "the proposed "+k.key
			}
		}
		n := strconv.Itoa(i)
		if cf.Class.Standing() {
			f := verdict.N("standing "+n, cf.Entries, verdict.Entries).From("the class's entries", "this table")
			terms, words = append(terms, f), append(words, "{standing "+n+"} standing open")
			sizing.f = append(sizing.f, f)
			continue
		}
		if rate > 0 {
			rf := verdict.N("rate "+n, rate, verdict.PerSecond).From("new entries of the class", "this table, the frames measured")
			hf := verdict.N("hold "+n, hold, verdict.Seconds).From(held, "the host")
			terms = append(terms, verdict.Times("product "+n, verdict.Entries, rf, hf))
			words = append(words, cf.Class.String()+" {rate "+n+"}/s × {hold "+n+"}")
			sizing.f = append(sizing.f, rf, hf)
		}
	}
	sizing.t = strings.Join(words, " + ")
	return verdict.Sum("sized", verdict.Entries, terms...), sizing
}

// rateFrom says where the plan's rate was measured when it is not the
// rate the header and the verdict show now.
func rateFrom(in Inputs, r *reason) {
	if in.RateFrom == "" || in.PeakRate <= 0 {
		return
	}
	r.say("; {peak rate}/s is {measured}", verdict.N("peak rate", in.PeakRate, verdict.PerSecond).From("the peak rate of new entries", "this table, the frames measured"),
		verdict.W("measured", in.RateFrom))
}

// standingNote names what holds a table that standing connections fill:
// a timeout frees nothing live, so none is proposed, but the entries idle
// over an hour and those in CLOSE_WAIT are named with the timeout that
// holds them. Nothing when standing connections do not fill it.
func standingNote(in Inputs, r *reason) {
	top, ok := in.Fill.Top()
	if !ok || !top.Class.Standing() {
		return
	}
	r.say("; standing connections: a timeout frees nothing that is live")
	c := in.Census
	if c == nil {
		return
	}
	walk := "this table, the census's walk"
	if c.IdleCounted && c.IdleOpen > 0 {
		r.say("; {idle} of them idle over an hour, held by nf_conntrack_tcp_timeout_established ({established}): lowering it frees those, and forgets connections that may still be alive",
			verdict.N("idle", c.IdleOpen, verdict.Entries).From("the census: established entries idle over an hour", walk),
			verdict.N("established", top.Hold, verdict.Seconds).From("nf_conntrack_tcp_timeout_established", "the host"))
	}
	if cw := c.TCPState[model.TCPStates[model.TCPCloseWait]]; cw > 0 {
		r.say("; {close wait} in CLOSE_WAIT: their peers closed and the application has not (nf_conntrack_tcp_timeout_close_wait holds each after its last packet)",
			verdict.N("close wait", cw, verdict.Entries).From("the census's TCP states", walk))
	}
}
