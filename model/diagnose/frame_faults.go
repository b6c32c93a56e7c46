package diagnose

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// Faults are the ways a frame's verdicts disagree with the frame they
// were judged from, checked on their facts, never their words: a fact of
// this table that is not the number read, a name printed empty, TABLE
// FULL of this table with its count under the cap and no drop, of
// another table with its count, peak and drops all short of it, a
// pinned table's demand below what it admits; and each verdict's own
// faults (verdict.Verdict.Faults). Every surface's tests and the
// fuzzer over generated timelines ask it of every frame.
func (f Frame) Faults() []string {
	var out []string
	c := f.Sample.Conntrack
	read := map[string]float64{"count": float64(c.Count), "peak": float64(c.Peak), "max": float64(c.Max), "buckets": float64(c.Buckets)}
	for _, v := range f.Verdicts {
		out = append(out, v.Faults()...)
		facts := map[string]verdict.Fact{}
		for _, x := range v.Facts() {
			facts[x.Name] = x
			if x.Unit == verdict.Name && x.Text == "" {
				out = append(out, fmt.Sprintf("%s prints %s empty", v.Kind, x.Name))
			}
			if want, ok := read[x.Name]; ok && strings.HasPrefix(x.Scope, model.ThisTable) && x.Value != want {
				out = append(out, fmt.Sprintf("%s prints %s %s, and %s read %s", v.Kind, x.Name, x, x.Name, verdict.N("", want, x.Unit)))
			}
		}
		if v.Kind != verdict.TableFull {
			continue
		}
		if v.Table == "" && !Pinned(c) && f.Rates.FullDrops() == 0 && !f.Pinned {
			out = append(out, fmt.Sprintf("TABLE FULL with count %d, peak %d of max %d and no drop", c.Count, c.Peak, c.Max))
		}
		if v.Table != "" {
			capF, count, peak, drops := facts["cap"], facts["ns count"], facts["ns peak"], facts["ns drops"]
			if count.Value < capF.Value && peak.Value < capF.Value && drops.Value == 0 {
				out = append(out, fmt.Sprintf("TABLE FULL of %s at %s of %s with no drop", v.Table, count, capF))
			}
		}
	}
	if r := f.Sustained(); f.Pinned && f.Demand.AtLeast > 0 && r.Known() && f.Demand.AtLeast+0.5 < r.Total {
		out = append(out, fmt.Sprintf("demand ≥ %.1f/s below the %.1f/s the pinned table admits", f.Demand.AtLeast, r.Total))
	}
	return out
}
