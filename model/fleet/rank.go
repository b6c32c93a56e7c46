package fleet

import (
	"math"
	"sort"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
)

// The fleet's one order is a number, so that the engine can rank a fleet
// too big to hand over (topk of the same number) and the console orders
// the page it receives the same way. Its three terms, from the most
// significant: where the verdict places the row, its drops per second
// (to the hundredth, at most DropsCeiling), and its count's share of the
// cap now (whole percent, at most 99). Every term is an integer and the sum
// stays under 2^53, so the engine's float64 and the console's agree
// exactly.
const (
	// DropsCeiling is the drops per second beyond which rows rank alike.
	DropsCeiling = 1e6
	// SeverityWeight and DropsWeight place the terms apart: the drops
	// term is below DropsCeiling×100×DropsWeight, the fill term below
	// DropsWeight.
	SeverityWeight = 1e12
	DropsWeight    = 100
	// FillCeiling is the highest fill term: a full table and one nearly
	// full rank on their drops.
	FillCeiling = 99
	// staleKey places a stale row after the critical verdicts, before
	// the warnings (a host that stopped answering may be the one on
	// fire).
	staleKey = 50
	// keySpan is above every severity key.
	keySpan = 1000
)

// SeverityKey is where a verdict places a row, lower first: critical
// kinds, then stale rows, then warnings, then OK, each in the kinds'
// table order.
func SeverityKey(k verdict.Kind, stale bool) int {
	sev, rank := diagnose.KindSeverity(k)
	key := int(verdict.SevCrit-sev)*100 + rank
	if stale && sev < verdict.SevCrit {
		return staleKey
	}
	return key
}

// StaleSeverity is the severity term of a stale row whose verdict is not
// critical.
func StaleSeverity() float64 { return float64(keySpan - staleKey) }

// KindSeverityTerm is the severity term of a row whose worst verdict is
// k (not stale, or k critical).
func KindSeverityTerm(k verdict.Kind) float64 { return float64(keySpan - SeverityKey(k, false)) }

// DropsTerm is the drops term of a drop rate.
func DropsTerm(dropsPS float64) float64 {
	return math.Floor(math.Min(dropsPS, DropsCeiling) * 100)
}

// FillTerm is the fill term of a count and its cap (0 without a cap).
func FillTerm(count, limit uint64) float64 {
	if limit == 0 {
		return 0
	}
	return math.Min(math.Floor(100*float64(count)/float64(limit)), FillCeiling)
}

// Score is a row's place in the fleet's order as one number, higher
// first: what the engine's ranking query computes for the instance.
func Score(r Row) float64 {
	return float64(keySpan-SeverityKey(r.Verdict(), r.Stale))*SeverityWeight + DropsTerm(r.DropsPS)*DropsWeight + FillTerm(r.Count, r.Limit)
}

// Sort orders rows most severe first: by Score, then by instance.
func Sort(rows []Row) {
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := Score(rows[i]), Score(rows[j]); a != b {
			return a > b
		}
		return rows[i].Instance < rows[j].Instance
	})
}
