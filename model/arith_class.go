package model

import (
	"strings"

	"github.com/tablefull/tablefull/model/verdict"
)

// Arithmetic says how cf's entries come about (ArithmeticClause's words).
func (f Fill) Arithmetic(cf ClassFill) string {
	if cf.Class.Standing() {
		return ""
	}
	return f.ArithmeticClause(cf).Text()
}

// ArithmeticClause says how cf's entries come about, its product a fact
// of its printed operands, or reads as a projection when the class does
// not hold that many now:
//
//	"80/s × 120 s = 9,600"                         the class holds that product
//	"80/s × 120 s needs 9,600"                     it holds another number (a census counted it, the table is smaller)
//	"80/s before the pin × 120 s needs 9,600"
//	"rate unknown while pinned, held 120 s each"
//	"none new, held 120 s each"                    no rate counted
//
// A class that stands open has no product: its clause says it is held
// while open.
func (f Fill) ArithmeticClause(cf ClassFill) verdict.Clause {
	hold := verdict.N("hold", cf.Hold, verdict.Seconds).From("the "+cf.Class.HoldState()+" timeout", thisTable)
	if cf.Class.Standing() {
		return verdict.Say(verdict.Numbers, "arith.standing", "held while open")
	}
	rate := verdict.N("rate", cf.RatePS, verdict.PerSecond).From(f.rateSource(), thisTable)
	if f.Lost {
		rate = rate.Lower()
	}
	before := ""
	switch {
	case f.Pinned && !f.RatesBefore:
		return verdict.Say(verdict.Numbers, "arith.unknown-pinned", "rate unknown while pinned, held {hold} each", hold)
	case cf.RatePS <= 0 && f.Pinned:
		return verdict.Say(verdict.Numbers, "arith.none-before", "no rate counted before the pin, held {hold} each", hold)
	case cf.RatePS <= 0:
		return verdict.Say(verdict.Numbers, "arith.none", "none new, held {hold} each", hold)
	case f.Pinned:
		before = " before the pin"
	}
	set := verdict.Times("needs", verdict.Entries, rate, hold)
	if uint64(set.Value) == cf.Entries && !f.Lost {
		return verdict.Say(verdict.Numbers, "arith.holds", "{rate}/s"+before+" × {hold} = {needs}", rate, hold, set)
	}
	return verdict.Say(verdict.Numbers, "arith.needs", "{rate}/s"+before+" × {hold} needs {needs}", rate, hold, set)
}

// rateSource is where a class's rate of new entries was counted.
func (f Fill) rateSource() string {
	if f.Pinned {
		return "new entries by class before the pin"
	}
	return "new entries by class"
}

// RateText says a rate of new entries with what it counts: "80 new/s",
// "80 new/s (TCP only)", "new entries not counted".
func (r EntryRates) RateText() string { return r.rateClause("").Text() }

// rateClause is RateText's clause, its template led by lead.
func (r EntryRates) rateClause(lead string) verdict.Clause {
	rate := verdict.N("new entries/s", r.Total, verdict.PerSecond)
	switch r.Basis {
	case BasisEvents:
		rate = rate.From("ctnetlink NEW events", thisTable)
		if r.LostPS > 0 {
			return verdict.Say(verdict.Numbers, "rate.lost", lead+"{new entries/s} new/s (events lost)", rate.Lower())
		}
		return verdict.Say(verdict.Numbers, "rate", lead+"{new entries/s} new/s", rate)
	case BasisTCPOpens:
		return verdict.Say(verdict.Numbers, "rate.tcp", lead+"{new entries/s} new/s (TCP only)", rate.From("TCP active and passive opens (/proc/net/snmp)", "the host"))
	}
	return verdict.Say(verdict.Numbers, "rate.unknown", lead+"new entries not counted")
}

// observedClause is "observed 80 new/s".
func (r EntryRates) observedClause() verdict.Clause {
	if !r.Known() {
		return r.rateClause("")
	}
	return r.rateClause("observed ")
}

// admitsClause is what a pinned table lets in: "admits 80 new/s
// (pinned)", "admits 33 new/s (TCP only, pinned)".
func (r EntryRates) admitsClause() verdict.Clause {
	c := r.rateClause("admits ")
	if strings.HasSuffix(c.Template, ")") {
		c.Template = strings.TrimSuffix(c.Template, ")") + ", pinned)"
	} else {
		c.Template += " (pinned)"
	}
	return c
}
