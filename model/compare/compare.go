// Package compare sets two sides of a change side by side — recordings
// before and after it, one or several passes a side — and says, for each
// figure that matters to a table's incident, what moved, by how much and
// whether that is beyond the spread between passes of the same side. It
// is the write-ups' method: measure before and after with the same tool
// on the same host, and judge a change against the run-to-run variation.
package compare

import (
	"slices"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
)

// Judgement is what a row's change is against the spread.
type Judgement string

// The judgements, from a figure no side read to a change beyond noise.
const (
	// Missing: a side has no pass that read the figure.
	Missing Judgement = "missing"
	// Unchanged: every pass of both sides read the same value.
	Unchanged Judgement = "unchanged"
	// SpreadUnknown: a side has one pass, so the spread between its
	// passes is not known and no change can be told from noise.
	SpreadUnknown Judgement = "spread unknown"
	// Within: the sides' ranges overlap: the change is within the noise.
	Within Judgement = "within the spread"
	// Beyond: every pass of one side is above every pass of the other.
	Beyond Judgement = "beyond the spread"
)

// Summary is a figure over a side's passes: how many read it, their
// median and their range (the spread).
type Summary struct {
	Passes int     `json:"passes"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Values are each pass's, in the side's order; null where the pass
	// did not read the figure (missing, not zero).
	Values []*float64 `json:"values"`
	Unread int        `json:"unread,omitempty"`
}

// summarise is the summary of each pass's value (nil: not read).
func summarise(vs []*float64) Summary {
	s := Summary{Values: vs}
	var read []float64
	for _, v := range vs {
		if v == nil {
			s.Unread++
			continue
		}
		read = append(read, *v)
	}
	s.Passes = len(read)
	if len(read) == 0 {
		return s
	}
	slices.Sort(read)
	n := len(read)
	s.Min, s.Max = read[0], read[n-1]
	s.Median = read[n/2]
	if n%2 == 0 {
		s.Median = (read[n/2-1] + read[n/2]) / 2
	}
	return s
}

// Row is one figure compared: A, B, the change from A to B and the
// judgement of it.
type Row struct {
	Figure Figure  `json:"figure"`
	A      Summary `json:"a"`
	B      Summary `json:"b"`
	// Change is B's median less A's; Factor B's over A's (0: A's is 0).
	Change    float64   `json:"change"`
	Factor    float64   `json:"factor,omitempty"`
	Judgement Judgement `json:"judgement"`
}

// Moved reports whether the row's change is beyond the spread.
func (r Row) Moved() bool { return r.Judgement == Beyond }

// Gain reports whether the change is for the better (false also for a
// figure that judges nothing or did not change).
func (r Row) Gain() bool {
	return r.Figure.Better == Lower && r.Change < 0 || r.Figure.Better == Higher && r.Change > 0
}

// judge is the judgement of a change from a to b.
func judge(a, b Summary) Judgement {
	switch {
	case a.Passes == 0 || b.Passes == 0:
		return Missing
	case a.Min == a.Max && b.Min == b.Max && a.Min == b.Min:
		return Unchanged
	case a.Passes < 2 || b.Passes < 2:
		return SpreadUnknown
	case a.Max < b.Min || b.Max < a.Min:
		return Beyond
	}
	return Within
}

// row compares figure f over the two sides' passes.
func row(f Figure, a, b []Pass, zeroIfUnread bool) Row {
	side := func(ps []Pass) Summary {
		vs := make([]*float64, len(ps))
		for i, p := range ps {
			v, ok := p.Value(f.Key)
			if ok || zeroIfUnread && p.Samples > 0 {
				// as printed: a change is judged on the numbers read
				printed := verdict.N(f.Name, v, f.Unit).Printed()
				vs[i] = &printed
			}
		}
		return summarise(vs)
	}
	r := Row{Figure: f, A: side(a), B: side(b)}
	r.Judgement = judge(r.A, r.B)
	if r.Judgement != Missing {
		r.Change = r.B.Median - r.A.Median
		if f, ok := r.FactorFact(); ok {
			r.Factor = f.Value
		}
	}
	return r
}

// Fact is v, a value of r's figure, as a typed fact: its unit, where it
// was read and over what.
func (r Row) Fact(v float64, scope string) verdict.Fact {
	return verdict.N(r.Figure.Name, v, r.Figure.Unit).From(r.Figure.Source, scope)
}

// FactorFact is B's median over A's as they are printed, so the factor
// read computes from the medians read (ok false: A's prints as 0).
func (r Row) FactorFact() (verdict.Fact, bool) {
	a, b := r.Fact(r.A.Median, "A's median"), r.Fact(r.B.Median, "B's median")
	if a.Printed() == 0 {
		return verdict.Fact{}, false
	}
	return verdict.Over("factor", verdict.Ratio, b, a), true
}

// heldKinds are the verdicts that held in any pass of either side, most
// severe first.
func heldKinds(sides ...[]Pass) []verdict.Kind {
	seen := map[verdict.Kind]bool{}
	var ks []verdict.Kind
	for _, ps := range sides {
		for _, p := range ps {
			for _, k := range p.kinds {
				if !seen[k] {
					seen[k] = true
					ks = append(ks, k)
				}
			}
		}
	}
	slices.SortStableFunc(ks, func(x, y verdict.Kind) int {
		sx, rx := diagnose.KindSeverity(x)
		sy, ry := diagnose.KindSeverity(y)
		if sx != sy {
			return int(sy - sx)
		}
		return rx - ry
	})
	return ks
}
