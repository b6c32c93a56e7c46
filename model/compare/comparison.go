package compare

import (
	"slices"

	"github.com/tablefull/tablefull/model/knob"
)

// Comparison is two sides set side by side: computed once, drawn by
// every medium (text, Markdown, JSON).
type Comparison struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Same: every figure read the same on every pass of both sides.
	Same bool `json:"same"`
	// SpreadKnown: both sides have the passes to measure their spread.
	SpreadKnown bool `json:"spread_known"`
	// Moved are the keys of the figures whose change is beyond the spread.
	Moved []string `json:"moved"`
	// Across are what differs between the sides' hosts and kernels: a
	// comparison across them is said so first, before any figure.
	Across []Difference `json:"across,omitempty"`
	// Knobs are the knobs each side began and ended with.
	Knobs []KnobRow `json:"knobs"`
	Rows  []Row     `json:"rows"`
}

// Side is one side's passes and what is counted over them.
type Side struct {
	Passes []Pass `json:"passes"`
	// Incidence is how many passes dropped of the passes that read
	// drops: an incidence per pass, not a sum.
	Dropped   int `json:"passes_dropped"`
	DropsRead int `json:"passes_read_drops"`
	// Classes counts the passes by the class that filled the table most.
	Classes []ClassPasses `json:"classes,omitempty"`
}

// ClassPasses is a class and the passes it filled the table in.
type ClassPasses struct {
	Class  string `json:"class"`
	Passes int    `json:"passes"`
}

// Difference is a property the two sides do not share: the distinct
// values of each.
type Difference struct {
	What string   `json:"what"`
	A    []string `json:"a"`
	B    []string `json:"b"`
}

// KnobRow is a knob's distinct values at the sides' starts and ends.
type KnobRow struct {
	Key    string   `json:"key"`
	Name   string   `json:"name"`
	ABegan []uint64 `json:"a_began"`
	AEnded []uint64 `json:"a_ended"`
	BBegan []uint64 `json:"b_began"`
	BEnded []uint64 `json:"b_ended"`
}

// Changed reports whether the knob had other values anywhere.
func (k KnobRow) Changed() bool {
	all := slices.Concat(k.ABegan, k.AEnded, k.BBegan, k.BEnded)
	return len(slices.Compact(slices.Sorted(slices.Values(all)))) > 1
}

// Compare sets passes a (before) against passes b (after).
func Compare(a, b []Pass) Comparison {
	c := Comparison{A: side(a), B: side(b)}
	for _, d := range []struct {
		what string
		get  func(Pass) string
	}{{"host", func(p Pass) string { return p.Host.Name }}, {"kernel", func(p Pass) string { return p.Host.Kernel }}} {
		va, vb := distinct(a, d.get), distinct(b, d.get)
		if !slices.Equal(va, vb) || len(va) > 1 {
			c.Across = append(c.Across, Difference{What: d.what, A: va, B: vb})
		}
	}
	c.Knobs = knobRows(a, b)
	for _, f := range figures {
		c.Rows = append(c.Rows, row(f, a, b, false))
	}
	for _, k := range heldKinds(a, b) {
		c.Rows = append(c.Rows, row(heldFigure(k), a, b, true))
	}
	c.SpreadKnown = len(a) > 1 && len(b) > 1
	c.Same = true
	c.Moved = []string{}
	for _, r := range c.Rows {
		if r.Judgement != Unchanged && r.Judgement != Missing {
			c.Same = false
		}
		if r.Moved() {
			c.Moved = append(c.Moved, r.Figure.Key)
		}
	}
	return c
}

// Row is the row of figure key (ok false: there is none).
func (c Comparison) Row(key string) (Row, bool) {
	i := slices.IndexFunc(c.Rows, func(r Row) bool { return r.Figure.Key == key })
	if i < 0 {
		return Row{}, false
	}
	return c.Rows[i], true
}

// MovedRows are the rows whose change is beyond the spread.
func (c Comparison) MovedRows() []Row {
	var out []Row
	for _, r := range c.Rows {
		if r.Moved() {
			out = append(out, r)
		}
	}
	return out
}

func side(ps []Pass) Side {
	s := Side{Passes: ps}
	counts := map[string]int{}
	for _, p := range ps {
		if dropped, ok := p.Dropped(); ok {
			s.DropsRead++
			if dropped {
				s.Dropped++
			}
		}
		if p.Class != "" {
			if counts[p.Class] == 0 {
				s.Classes = append(s.Classes, ClassPasses{Class: p.Class})
			}
			counts[p.Class]++
		}
	}
	for i := range s.Classes {
		s.Classes[i].Passes = counts[s.Classes[i].Class]
	}
	slices.SortStableFunc(s.Classes, func(x, y ClassPasses) int { return y.Passes - x.Passes })
	return s
}

// distinct are the distinct values of get over ps, in order of first
// appearance.
func distinct(ps []Pass, get func(Pass) string) []string {
	var out []string
	for _, p := range ps {
		if v := get(p); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// knobRows are the knobs read at the sides' starts and ends, those not
// read by any pass left out.
func knobRows(a, b []Pass) []KnobRow {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	var keys []string
	for _, p := range slices.Concat(a, b) {
		for _, kv := range p.Began {
			if !slices.Contains(keys, kv.Key) {
				keys = append(keys, kv.Key)
			}
		}
	}
	values := func(ps []Pass, ended bool, key string) []uint64 {
		var out []uint64
		for _, p := range ps {
			kvs := p.Began
			if ended {
				kvs = p.Ended
			}
			for _, kv := range kvs {
				if kv.Key == key && kv.Value > 0 && !slices.Contains(out, kv.Value) {
					out = append(out, kv.Value)
				}
			}
		}
		return out
	}
	var rows []KnobRow
	for _, k := range keys {
		r := KnobRow{Key: k, Name: knob.Name(k), ABegan: values(a, false, k), AEnded: values(a, true, k), BBegan: values(b, false, k), BEnded: values(b, true, k)}
		if len(r.ABegan)+len(r.AEnded)+len(r.BBegan)+len(r.BEnded) > 0 {
			rows = append(rows, r)
		}
	}
	return rows
}
