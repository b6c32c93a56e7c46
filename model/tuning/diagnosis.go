package tuning

import (
	"fmt"
	"slices"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
)

// Diagnosis is one moment as every surface draws it — the console's
// lines and its tuning panel, tablefull tune, its --until-free loop, the
// report: the frame's verdicts, arithmetic by class and demand (the
// analyzer's, computed once for the frame) with the one plan and the
// loop's judgement made from them. No surface builds a plan, a sentence
// of arithmetic or a severity of its own.
type Diagnosis struct {
	Now  diagnose.Frame
	Plan Plan
	Loop LoopStatus
}

// Diagnose is the diagnosis of g's moment: the plan of every surface
// (the demand's, after an apply sized on what the count did since, once
// free the way back down; refused where the memory or the cause says).
func Diagnose(g Guide) Diagnosis {
	p, l := proposeNext(g)
	return Diagnosis{Now: g.Now, Plan: p, Loop: l}
}

// Contradictions are the ways d disagrees with itself, which every
// surface would then print: a plan that proposes a knob a verdict of the
// moment rules out, or, where a verdict names trouble, one that no
// verdict's kind may change (outside the loop's way back down); a verdict about another table whose
// evidence does not name it; a product in a verdict or a change's
// arithmetic that does not compute; a count, peak or cap a verdict
// prints that is not the one read (verdict.Verdict.FactFaults).
func (d Diagnosis) Contradictions() []string {
	var out []string
	changes := append(slices.Clone(d.Plan.Changes), d.Plan.FromHost...)
	allowed := map[string]bool{}
	troubles := d.Now.Verdicts
	if d.Loop.State == LoopPinned { // the loop's judgement is the table's trouble, as proposeNext serves it
		troubles = append(slices.Clone(troubles), verdict.Verdict{Kind: verdict.TableFull})
	}
	for _, k := range troubles {
		if spec, ok := diagnose.SpecOf(k.Kind); ok {
			for _, name := range spec.Knobs {
				allowed[name] = true
			}
		}
	}
	for _, v := range d.Now.Verdicts {
		for _, c := range changes {
			if slices.Contains(v.RulesOut, c.Key) {
				out = append(out, fmt.Sprintf("%s rules %s out, and the plan proposes it (%s → %s)", v.Kind, c.Key, c.Current, c.Proposed))
			}
		}
		if v.Table != "" && !namesTable(v) {
			out = append(out, fmt.Sprintf("%s is about %s and does not say so: %s", v.Kind, v.Table, v.Text()))
		}
		for _, f := range v.Faults() {
			out = append(out, fmt.Sprintf("%s: %s", v.Kind, f))
		}
	}
	// Where a verdict names trouble, the plan changes only what its kind
	// may; a quiet moment's plan is headroom, and the loop's way back
	// down is no verdict's.
	troubled := slices.ContainsFunc(d.Now.Verdicts, func(v verdict.Verdict) bool { return v.Severity > verdict.SevOK })
	settling := d.Loop.State == LoopSettle
	for _, c := range changes {
		if troubled && !allowed[c.Key] && !settling {
			out = append(out, fmt.Sprintf("the plan proposes %s → %s, which none of the moment's verdicts (%s) may change", c.Key, c.Proposed, kinds(d.Now.Verdicts)))
		}
		for _, f := range c.Why.Faults() {
			out = append(out, fmt.Sprintf("the plan's %s prints %s", c.Key, f))
		}
	}
	return out
}

// namesTable reports whether one of v's facts names the table it is
// about.
func namesTable(v verdict.Verdict) bool {
	for _, f := range v.Facts() {
		if f.Unit == verdict.Name && f.Text == v.Table {
			return true
		}
	}
	return false
}

// kinds lists the verdicts' kinds: "TABLE FULL, NEAR CAP".
func kinds(vs []verdict.Verdict) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += string(v.Kind)
	}
	return s
}

// Said is a diagnosis as the command line's --json prints it beside its
// plan: the kind, the class that fills the table and every verdict of
// the moment, so a script reads the same diagnosis the console draws.
type Said struct {
	Kind verdict.Kind `json:"kind"`
	// Fills is the class that fills the table most ("tcp-closed"); ""
	// when nothing is known of the classes.
	Fills    string            `json:"fills,omitempty"`
	Verdicts []verdict.Verdict `json:"verdicts,omitempty"`
}

// Said is d's moment as --json prints it.
func (d Diagnosis) Said() *Said {
	s := &Said{Kind: d.Now.Verdict().Kind, Verdicts: d.Now.Verdicts}
	if top, ok := d.Now.Fill.Top(); ok {
		s.Fills = top.Class.String()
	}
	return s
}
