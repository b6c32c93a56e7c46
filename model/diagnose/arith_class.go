package diagnose

import (
	"github.com/tablefull/tablefull/model"
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
	hold := verdict.N("hold", cf.Hold, verdict.Seconds).From("the "+cf.Class.HoldState()+" timeout", model.ThisTable)
	if cf.Class.Standing() {
		return say(verdict.Numbers, "arith.standing")
	}
	rate := verdict.N("rate", cf.RatePS, verdict.PerSecond).From(f.rateSource(), model.ThisTable)
	if f.Lost {
		rate = rate.Lower()
	}
	key := ""
	switch {
	case f.Pinned && !f.RatesBefore:
		return say(verdict.Numbers, "arith.unknown-pinned", hold)
	case cf.RatePS <= 0 && f.Pinned:
		return say(verdict.Numbers, "arith.none-before", hold)
	case cf.RatePS <= 0:
		return say(verdict.Numbers, "arith.none", hold)
	case f.Pinned:
		key = ".before-pin"
	}
	set := verdict.Times("needs", verdict.Entries, rate, hold)
	if uint64(set.Value) == cf.Entries && !f.Lost {
		return say(verdict.Numbers, "arith.holds"+key, rate, hold, set)
	}
	return say(verdict.Numbers, "arith.needs"+key, rate, hold, set)
}

// rateSource is where a class's rate of new entries was counted.
func (f Fill) rateSource() string {
	if f.Pinned {
		return "new entries by class before the pin"
	}
	return "new entries by class"
}
