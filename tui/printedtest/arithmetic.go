// Package printedtest reads numbers back out of what a surface printed,
// for tests only: a second oracle beside the facts the words are
// rendered from. The program never reads its own words; model/ holds no
// such reader.
package printedtest

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/units"
)

// The arithmetic rule read back from what the surfaces print: a second
// oracle for their tests beside the facts the words are rendered from
// (verdict.Verdict.Faults, the plan's reasons' Faults), which the
// program itself asks. Only tests read numbers out of words.
var (
	// printedProducts are a class's arithmetic as the surfaces write it,
	// "80/s × 120 s = 9,600", "… needs 9,600" or "80/s held 120 s each
	// need 9,600" (a number cut by "…" is not matched).
	printedProducts = regexp.MustCompile(`([0-9][0-9,.]*)/s(?: before the pin)? (?:× ([0-9]+) s (?:=|needs)|held ([0-9]+) s each need) ([0-9][0-9,]*)(?:[^0-9,…]|$)`)
	// zeroProducts are products of a rate not counted: never printed.
	zeroProducts = regexp.MustCompile(`(^|[^0-9.,])0/s(?: before the pin)? ×|\b0 new/s held`)
)

// ArithmeticFaults are the ways text breaks the arithmetic rule: a
// printed rate × hold whose printed result is not its product, and a
// product of a rate not counted (0/s ×). A wrapped line reads as one
// sentence. Each fault quotes what was printed; read is how many
// products the text prints, so that a check that finds no fault can
// tell that it read some.
func ArithmeticFaults(text string) (out []string, read int) {
	flat := strings.Join(strings.Fields(text), " ")
	products := printedProducts.FindAllStringSubmatch(flat, -1)
	for _, g := range products {
		rate, err1 := strconv.ParseFloat(strings.ReplaceAll(g[1], ",", ""), 64)
		hold, err2 := strconv.ParseFloat(g[2]+g[3], 64)
		got, err3 := strconv.ParseFloat(strings.ReplaceAll(g[4], ",", ""), 64)
		if err1 != nil || err2 != nil || err3 != nil || math.Abs(rate*hold-got) > 0.5 {
			out = append(out, strings.TrimSpace(g[0])+" (the product is "+units.Num(rate*hold)+")")
		}
	}
	if m := zeroProducts.FindString(flat); m != "" {
		out = append(out, strings.TrimSpace(m)+" (a rate not counted)")
	}
	return out, len(products)
}
