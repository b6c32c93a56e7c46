package tuning

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestPlanArithmeticIsOfTheRateShown: a plan's why prints each product
// of the rate as it prints it ("333/s held 120 s each need 39,960", not
// the unrounded 333.14's 39,977), as every surface's arithmetic does.
func TestPlanArithmeticIsOfTheRateShown(t *testing.T) {
	fill := diagnose.Fill{Classes: []diagnose.ClassFill{{Class: model.ClassTCPDone, RatePS: 333.14, Hold: 120, Entries: 4096}}}
	p := ProposePlan(Inputs{Current: map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120"},
		PeakRate: 333.14, PeakCount: 4096, Kernel: "6.18.44", MemTotal: 24 << 30, Verdicts: []verdict.Kind{verdict.TableFull}, Fill: fill})
	read := 0
	for _, c := range p.Changes {
		for _, f := range c.Why.Facts {
			if len(f.Of) > 0 {
				read++
			}
		}
		for _, f := range c.Why.Faults() {
			t.Errorf("%s: %s", c.Key, f)
		}
		if w := c.Why.Text(); c.Key == knob.TimeWait && !strings.Contains(w, "333/s held 120 s each need 39,960") {
			t.Errorf("%s: %s", c.Key, w)
		}
	}
	if read == 0 {
		t.Fatalf("no product printed to check: %+v", p.Changes)
	}
}

// TestWorkingSetSaysWhichItIs: when the table held more than its
// classes' arithmetic needs, the plan sizes on the peak count and says
// so, and the arithmetic beside it is printed with its own total; never
// a sum followed by a number it is not ("13,560 (122/s × 30 s + 1
// standing open, or the peak count)").
func TestWorkingSetSaysWhichItIs(t *testing.T) {
	fill := diagnose.Fill{Classes: []diagnose.ClassFill{{Class: model.ClassTCPDone, RatePS: 122, Hold: 120, Entries: 12000}, {Class: model.ClassTCPOpen, Entries: 1}}}
	p := ProposePlan(Inputs{Current: map[string]string{knob.Max: "16384", knob.Hashsize: "16384", knob.TimeWait: "120"},
		PeakRate: 122, PeakCount: 13560, Kernel: "6.18.44", MemTotal: 24 << 30, Verdicts: []verdict.Kind{verdict.TableFull}, Fill: fill})
	for _, c := range p.Changes {
		if c.Key != knob.Max {
			continue
		}
		w := c.Why.Text()
		if !strings.HasPrefix(w, "peak working set 13,560 (the peak count; tcp-closed 122/s × 30 s + 1 standing open needs 3,661)") {
			t.Errorf("max: %s", w)
		}
		if f := c.Why.Faults(); len(f) > 0 {
			t.Errorf("max: %v", f)
		}
		return
	}
	t.Fatalf("no change of max: %+v", p.Changes)
}
