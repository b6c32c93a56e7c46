package diagnose

import (
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
)

// TestArithmeticComputes: a class's arithmetic prints "=" only when the
// product of the numbers it prints is its entries; otherwise the product
// reads as what the class needs, and a class with no rate prints no
// product at all (never "0/s × 120 s").
func TestArithmeticComputes(t *testing.T) {
	done := func(rate float64, entries uint64) ClassFill {
		return ClassFill{Class: model.ClassTCPDone, RatePS: rate, Hold: 120, Entries: entries}
	}
	for _, c := range []struct {
		name string
		f    Fill
		cf   ClassFill
		want string
	}{
		{"the product holds", Fill{}, done(25, 3000), "25/s × 120 s = 3,000"},
		{"a census counted fewer", Fill{Counted: true}, done(80, 710), "80/s × 120 s needs 9,600"},
		{"printed rate rounds", Fill{}, done(2.46, 295), "2.5/s × 120 s needs 300"},
		{"events lost", Fill{Lost: true}, done(25, 3000), "≥ 25/s × 120 s needs 3,000"},
		{"no rate", Fill{Counted: true}, done(0, 256), "none new, held 120 s each"},
		{"before the pin", Fill{Pinned: true, RatesBefore: true}, done(80, 256), "80/s before the pin × 120 s needs 9,600"},
		{"none before the pin", Fill{Pinned: true, RatesBefore: true}, done(0, 256), "no rate counted before the pin, held 120 s each"},
		{"pinned, rate unknown", Fill{Pinned: true}, done(0, 256), "rate unknown while pinned, held 120 s each"},
		{"standing", Fill{}, ClassFill{Class: model.ClassTCPOpen, Entries: 400}, ""},
	} {
		if got := c.f.Arithmetic(c.cf); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNoCeilingForStanding: a table standing connections fill has no
// ceiling of new entries: no TIME_WAIT arithmetic is drawn for it; where
// nothing is counted of what fills it, TIME_WAIT's ceiling is said as
// the guess it is (a table of UDP lookups is not held by TIME_WAIT).
func TestNoCeilingForStanding(t *testing.T) {
	c := model.Conntrack{Max: 400, TimeWaitHold: 120}
	standing := Fill{Counted: true, Classes: []ClassFill{{Class: model.ClassTCPOpen, Entries: 400}}}
	if got := ceilingClause(c, standing).Text(); got != "no ceiling ("+NoCeiling+")" {
		t.Errorf("standing: %q", got)
	}
	if got := ceilingClause(c, Fill{}).Text(); got != "ceiling 3.3 new/s if closing TCP fills it (400 ÷ 120 s TIME_WAIT hold; what fills it is not counted)" {
		t.Errorf("no classes: %q", got)
	}
}

// TestCeilingOfAMomentIsItsOwn: the ceiling at the start of a recording
// is the start's cap over the start's hold, though the fill was counted
// after the hold was lowered.
func TestCeilingOfAMomentIsItsOwn(t *testing.T) {
	start := model.Conntrack{Max: 4096, TimeWaitHold: 120, Holds: [model.NumClasses]uint64{model.ClassTCPDone: 120}}
	later := Fill{Classes: []ClassFill{{Class: model.ClassTCPDone, RatePS: 500, Hold: 30, Entries: 15000}}}
	if c, why := CeilingOf(start, later.WithHolds(start, "")); units.Num(c) != "34" || why != "4,096 ÷ 120 s TIME_WAIT hold" {
		t.Errorf("the start's ceiling: %s (%s), want 34 (4,096 ÷ 120 s TIME_WAIT hold)", units.Num(c), why)
	}
	if later.Classes[0].Hold != 30 {
		t.Errorf("WithHolds changed the fill it was given")
	}
}
