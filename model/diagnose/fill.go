package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// ClassFill is one class's share of the table: how fast its entries are
// made, how long the kernel holds each, and how many entries that is.
type ClassFill struct {
	Class  model.Class
	RatePS float64
	// Hold is the class's timeout now, in seconds (0: not read).
	Hold uint64
	// Entries is the class's standing entries: counted by a census when
	// Counted, otherwise rate × hold (Little's law), scaled to the count
	// when the demand for room is larger than the table.
	Entries uint64
}

// Fill is what fills the table, the classes heaviest first.
type Fill struct {
	// Basis is what the rates were counted from.
	Basis   model.Basis
	Classes []ClassFill
	// Counted reports that Entries came from a census of the table rather
	// than from rate × hold; CountedAt when that census's dump finished,
	// which may be frames before the one it is drawn with.
	Counted   bool
	CountedAt time.Time
	// Lost reports that events were lost: the rates are lower bounds.
	Lost bool
	// Guessed says a protocol's new entries were put in its first class
	// for want of anything that splits them (no entry of it ended, no
	// census): the classes are a guess until one is counted (Outweighs).
	Guessed bool
	// Pinned says the table is at its cap: it admits only its ceiling,
	// so what gets in is not the classes' rate. RatePS is then each
	// class's rate before the pin (RatesBefore), or unknown (0).
	Pinned, RatesBefore bool
}

// Known reports whether anything is known of the classes.
func (f Fill) Known() bool { return len(f.Classes) > 0 }

// Top is the class that fills the table most; ok is false when nothing
// is known.
func (f Fill) Top() (ClassFill, bool) {
	if len(f.Classes) == 0 {
		return ClassFill{}, false
	}
	return f.Classes[0], true
}

// Churn is the heaviest class whose entries come and go (not standing
// open): the one whose hold sets the ceiling on new entries. While
// pinned with its rate unknown, it is the heaviest such class in the
// table (its rate is then the demand's).
func (f Fill) Churn() (ClassFill, bool) {
	for _, c := range f.Classes {
		if !c.Class.Standing() && c.Hold > 0 && (c.RatePS > 0 || f.Pinned && c.Entries > 0) {
			return c, true
		}
	}
	return ClassFill{}, false
}

// WorkingSet is Little's law by class: Σ rate × hold over the classes
// that churn, plus the entries standing open.
func (f Fill) WorkingSet() uint64 {
	var t float64
	for _, c := range f.Classes {
		if c.Class.Standing() {
			t += float64(c.Entries)
		} else {
			t += c.RatePS * float64(c.Hold)
		}
	}
	return uint64(t + 0.5)
}

// FillOf says what fills the table of s: the rates of r by class, their
// holds, and census, when one is given, for the standing entries. Without
// a census each churning class stands for rate × hold entries, and what is
// left of the count stands open as far as established sockets show it;
// the rest (entries made before the rates were counted, forwarded
// connections) is not put in any class.
func FillOf(s model.Sample, r model.Rates, census *model.Census) Fill {
	c := s.Conntrack
	f := Fill{Basis: r.Entries.Basis, Lost: r.Entries.LostPS > 0}
	counted := census != nil && census.Error == "" && census.ByClass.Total() > 0
	if !r.Entries.Known() && !counted {
		return f
	}
	f.Counted = counted
	perClass := r.Entries.PerClass
	if counted {
		f.CountedAt = census.At
		perClass = splitUnsplit(census, r.Entries)
	} else {
		for pr, unsplit := range r.Entries.Unsplit {
			f.Guessed = f.Guessed || unsplit && r.Entries.PerClass[model.Proto(pr).Classes()[0]] > 0
		}
	}
	for _, cl := range model.AllClasses {
		cf := ClassFill{Class: cl, RatePS: perClass[cl], Hold: classHold(c, cl, s.KernelRelease)}
		f.Classes = append(f.Classes, cf)
	}
	f.setEntries(s, census, counted)
	return f
}

// setEntries sizes each class from its rate and hold (or the census's
// count of it), heaviest first; classes with neither are left out.
func (f *Fill) setEntries(s model.Sample, census *model.Census, counted bool) {
	c := s.Conntrack
	var churn float64
	for _, cf := range f.Classes {
		if !cf.Class.Standing() {
			churn += cf.RatePS * float64(cf.Hold)
		}
	}
	count := max(c.Count, c.Peak)
	scale := 1.0
	if churn > float64(count) && churn > 0 {
		scale = float64(count) / churn
	}
	for i := range f.Classes {
		cf := &f.Classes[i]
		switch {
		case counted:
			cf.Entries = census.ByClass[cf.Class]
		case cf.Class.Standing(): // what churn leaves, as far as open sockets show it
			cf.Entries = min(model.Increase(uint64(min(churn, float64(count))+0.5), count), s.TCP.Established)
		default:
			cf.Entries = uint64(cf.RatePS*float64(cf.Hold)*scale + 0.5)
		}
	}
	kept := f.Classes[:0]
	for _, cf := range f.Classes {
		if cf.Entries > 0 || cf.RatePS > 0 {
			kept = append(kept, cf)
		}
	}
	f.Classes = kept
	sort.SliceStable(f.Classes, func(i, j int) bool {
		a, b := f.Classes[i], f.Classes[j]
		if a.Entries != b.Entries {
			return a.Entries > b.Entries
		}
		return a.RatePS > b.RatePS
	})
}

// WhilePinned is f for a pinned table: the rates a full table admits are
// its ceiling, not what each class asks, so each class keeps its rate
// from before the pin (before), or its
// rate is unknown (before nil). A census's counts stay, and split the
// rates before the pin that no ended entry could (splitUnsplit).
func (f Fill) WhilePinned(s model.Sample, before *model.EntryRates) Fill {
	if !f.Known() {
		return f
	}
	out := Fill{Basis: f.Basis, Counted: f.Counted, CountedAt: f.CountedAt, Lost: f.Lost, Pinned: true, RatesBefore: before != nil, Guessed: f.Guessed}
	var rates [model.NumClasses]float64
	if before != nil {
		rates = before.PerClass
		out.Guessed = out.Guessed || !f.Counted && slices.Contains(before.Unsplit[:], true)
		if f.Counted {
			standing := &model.Census{}
			for _, cf := range f.Classes {
				standing.ByClass[cf.Class] = cf.Entries
			}
			rates = splitUnsplit(standing, *before)
		}
	}
	for _, cl := range model.AllClasses {
		cf := ClassFill{Class: cl, Hold: classHold(s.Conntrack, cl, s.KernelRelease), RatePS: rates[cl]}
		for _, old := range f.Classes {
			if old.Class == cl {
				cf.Entries = old.Entries
			}
		}
		out.Classes = append(out.Classes, cf)
	}
	if f.Counted || before != nil {
		var census *model.Census
		if f.Counted {
			census = &model.Census{ByClass: model.ClassCounts{}}
			for _, cf := range out.Classes {
				census.ByClass[cf.Class] = cf.Entries
			}
		}
		out.setEntries(s, census, f.Counted)
		return out
	}
	kept := out.Classes[:0] // no rates, no census: the sizes from what was admitted stay
	for _, cf := range out.Classes {
		if cf.Entries > 0 {
			kept = append(kept, cf)
		}
	}
	out.Classes = kept
	return out
}

// CeilingOf is the sustainable rate of new entries the table takes when
// it is filled by f's churning class, with the words that say so: "400 ÷
// 30 s UDP hold". A table that standing connections fill has no such
// ceiling (0): an entry gets in as one closes, whatever the holds.
// Without classes it is the TIME_WAIT hold's ceiling, the write-up's
// arithmetic.
func CeilingOf(c model.Conntrack, f Fill) (float64, string) {
	if cf, ok := f.Churn(); ok {
		return arith.Ceiling(c.Max, cf.Hold), fmt.Sprintf("%s ÷ %d s %s hold", units.Int(c.Max), cf.Hold, cf.Class.HoldState())
	}
	if cf, ok := f.Top(); ok && cf.Class.Standing() {
		return 0, NoCeiling
	}
	return arith.Ceiling(c.Max, c.TimeWaitHold), fmt.Sprintf("%s ÷ %d s TIME_WAIT hold", units.Int(c.Max), c.TimeWaitHold)
}

// NoCeiling is CeilingOf's words for a table that standing connections
// fill.
const NoCeiling = "standing connections fill it: one gets in as one closes"

// ceilingClause is the ceiling as every verdict says it: "ceiling 34
// new/s (4,096 ÷ 120 s TIME_WAIT hold)", or "no ceiling (standing
// connections fill it: …)"; the quotient is a fact of its operands.
func ceilingClause(c model.Conntrack, f Fill) verdict.Clause {
	hold, state := c.TimeWaitHold, "TIME_WAIT"
	if cf, ok := f.Churn(); ok {
		hold, state = cf.Hold, cf.Class.HoldState()
	} else if cf, ok := f.Top(); ok && cf.Class.Standing() {
		return say(verdict.Numbers, "ceiling.none").After("; ")
	}
	max, held := model.FactMax(c), verdict.N("hold", hold, verdict.Seconds).From("the "+state+" timeout", model.ThisTable)
	ceiling := verdict.Over("ceiling", verdict.PerSecond, max, held)
	key := "ceiling"
	if !f.Known() { // TIME_WAIT's is a guess until the classes are counted
		key = "ceiling.guessed"
	}
	return say(verdict.Numbers, key, ceiling, max, held, verdict.W("state", state))
}

// DescribeClauses say what fills a table: "400 of 400 entries udp/53,
// 700/s × 30 s needs 21,000" when the class holds them all, "256 of 256
// entries: 232 tcp-closed, 80/s before the pin × 120 s needs 9,600" when
// it holds some (the class's ArithmeticClause), "400 of 400 entries: 380
// standing open (tcp-open)". The "N of M" is always the frame's count and
// cap; a class's share not counted by a census is "~". None when nothing
// is known.
func (f Fill) DescribeClauses(tops []tally.Count, c model.Conntrack) []verdict.Clause {
	cf, ok := f.Top()
	if !ok {
		return nil
	}
	name := cf.Class.String()
	if k := topOf(cf.Class, tops); k != "" {
		name = k
	}
	facts := []verdict.Fact{model.FactCount(c), model.FactMax(c), verdict.W("class", name)}
	key := "fill"
	if cf.Entries != c.Count || !f.Counted {
		key += ".share"
		if !f.Counted {
			key = "fill.guessed"
		}
		facts = append(facts, verdict.N("share", cf.Entries, verdict.Entries).From(f.shareSource(), model.ThisTable))
	}
	if cf.Class.Standing() {
		return []verdict.Clause{say(verdict.Lead, key+".standing", facts...)}
	}
	a := f.ArithmeticClause(cf)
	a.Weight = verdict.Lead // the product is what the fill is said with
	return []verdict.Clause{say(verdict.Lead, key, facts...), a.After(", ")}
}

// DescribeText is DescribeClauses' words, "" when nothing is known.
func (f Fill) DescribeText(tops []tally.Count, c model.Conntrack) string {
	return verdict.Verdict{Clauses: f.DescribeClauses(tops, c)}.Text()
}

// shareSource is where a class's entries were counted.
func (f Fill) shareSource() string {
	if f.Counted {
		return "a census of the table by class"
	}
	return "the class's rate × its hold, not counted"
}

// topOf is the heaviest destination of tops that belongs to class c's
// protocol ("udp/53"), "" when none does.
func topOf(c model.Class, tops []tally.Count) string {
	prefix := map[model.Class]string{model.ClassTCPDone: "tcp/", model.ClassTCPReset: "tcp/", model.ClassTCPUnanswered: "tcp/", model.ClassTCPHalfOpen: "tcp/", model.ClassTCPLastAck: "tcp/", model.ClassTCPOpen: "tcp/",
		model.ClassUDPSingle: "udp/", model.ClassUDPStream: "udp/"}[c]
	if prefix == "" {
		return ""
	}
	for _, t := range tops {
		if len(t.Key) > len(prefix) && t.Key[:len(prefix)] == prefix {
			return safe.Text(t.Key, 32) // a key from a stream is foreign text
		}
	}
	return ""
}
