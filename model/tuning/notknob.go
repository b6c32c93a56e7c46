package tuning

import (
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// FixElsewhere is where the fix of now's most severe verdict is when no
// knob is it (its kind's FixElsewhere in model's table of kinds): its
// kind and the sentence, ok false when the verdict's fix is a knob, or
// none of them holds.
func FixElsewhere(now diagnose.Frame) (verdict.Kind, string, bool) {
	for _, v := range now.Verdicts { // most severe first
		if spec, ok := diagnose.SpecOf(v.Kind); ok && spec.FixElsewhere != "" {
			return v.Kind, spec.FixElsewhere, true
		}
	}
	return "", "", false
}

// over says the span a working set was measured over: "over the last
// 5 s", "now" for one frame.
func over(d time.Duration) string {
	if d <= 0 {
		return "now"
	}
	return "over the last " + units.Dur(d)
}

// entries is "1 entry", "240 entries".
func entries(n uint64) string {
	if n == 1 {
		return "1 entry"
	}
	return units.Int(n) + " entries"
}

// Nothing is what a surface says of a plan that changes nothing and
// refuses nothing: that the knobs hold the working set, and where the fix
// is when it is not a knob.
func (p Plan) Nothing() string {
	say := fmt.Sprintf("nothing to propose: the current values hold this table's peak working set %s (%s) with room to spare",
		over(p.MeasuredFor), entries(p.WorkingSet))
	if p.FixElsewhere != "" {
		say += "; " + p.FixElsewhere
	}
	return say
}
