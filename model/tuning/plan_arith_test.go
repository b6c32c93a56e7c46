package tuning

import (
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestPlanArithmeticIsOfTheRateShown: a plan's why prints each product
// of the rate as it prints it ("333/s held 120 s each need 39,960", not
// the unrounded 333.14's 39,977), as every surface's arithmetic does.
func TestPlanArithmeticIsOfTheRateShown(t *testing.T) {
	fill := model.Fill{Classes: []model.ClassFill{{Class: model.ClassTCPDone, RatePS: 333.14, Hold: 120, Entries: 4096}}}
	p := ProposePlan(Inputs{Current: map[string]string{model.KnobMax: "4096", model.KnobHashsize: "4096", model.KnobTimeWait: "120"},
		PeakRate: 333.14, PeakCount: 4096, Kernel: "6.18.44", MemTotal: 24 << 30, Verdicts: []verdict.Kind{verdict.TableFull}, Fill: fill})
	read := 0
	for _, c := range p.Changes {
		faults, n := model.ArithmeticFaults(c.Why)
		read += n
		for _, f := range faults {
			t.Errorf("%s: %s", c.Key, f)
		}
	}
	if read == 0 {
		t.Fatalf("no product printed to check: %+v", p.Changes)
	}
}
