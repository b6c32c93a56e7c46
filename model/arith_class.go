package model

import (
	"fmt"
	"strconv"

	"github.com/tablefull/tablefull/model/units"
)

// Arithmetic says how cf's entries come about, in words whose printed
// product equals its printed result, or reads as a projection when the
// class does not hold that many now:
//
//	"80/s × 120 s = 9,600"                         the class holds that product
//	"80/s × 120 s needs 9,600"                     it holds another number (a census counted it, the table is smaller)
//	"80/s before the pin × 120 s needs 9,600"
//	"rate unknown while pinned, held 120 s each"
//	"none new, held 120 s each"                    no rate counted
//
// "" for a class that stands open (its number is not rate × hold). The
// product is taken of the rate as printed, so what is read computes.
func (f Fill) Arithmetic(cf ClassFill) string {
	if cf.Class.Standing() {
		return ""
	}
	lower := ""
	if f.Lost {
		lower = "≥ "
	}
	rate := lower + units.Num(cf.RatePS) + "/s"
	switch {
	case f.Pinned && !f.RatesBefore:
		return fmt.Sprintf("rate unknown while pinned, held %d s each", cf.Hold)
	case cf.RatePS <= 0 && f.Pinned:
		return fmt.Sprintf("no rate counted before the pin, held %d s each", cf.Hold)
	case cf.RatePS <= 0:
		return fmt.Sprintf("none new, held %d s each", cf.Hold)
	case f.Pinned:
		rate += " before the pin"
	}
	product := uint64(ShownNum(cf.RatePS)*float64(cf.Hold) + 0.5)
	if product == cf.Entries && !f.Lost {
		return fmt.Sprintf("%s × %d s = %s", rate, cf.Hold, units.Int(product))
	}
	return fmt.Sprintf("%s × %d s needs %s", rate, cf.Hold, units.Int(product))
}

// ShownNum is v as Num prints it: a product printed beside it is taken
// of this, so that what is read computes.
func ShownNum(v float64) float64 {
	s := units.Num(v)
	var digits []byte
	for i := 0; i < len(s); i++ {
		if s[i] != ',' {
			digits = append(digits, s[i])
		}
	}
	x, _ := strconv.ParseFloat(string(digits), 64)
	return x
}
