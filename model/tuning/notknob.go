package tuning

import (
	"fmt"

	"github.com/tablefull/tablefull/model"
)

// FixElsewhere is where the fix of now's most severe verdict is when no
// knob is it (its kind's FixElsewhere in model's table of kinds): its
// kind and the sentence, ok false when the verdict's fix is a knob, or
// none of them holds.
func FixElsewhere(now model.Frame) (model.Kind, string, bool) {
	for _, v := range now.Verdicts { // most severe first
		if spec, ok := model.SpecOf(v.Kind); ok && spec.FixElsewhere != "" {
			return v.Kind, spec.FixElsewhere, true
		}
	}
	return "", "", false
}

// Nothing is what a surface says of a plan that changes nothing and
// refuses nothing: that the knobs hold the working set, and where the fix
// is when it is not a knob.
func (p Plan) Nothing() string {
	say := fmt.Sprintf("nothing to propose: the current values hold the peak working set of %s entries with room to spare", model.Int(p.WorkingSet))
	if p.FixElsewhere != "" {
		say += "; " + p.FixElsewhere
	}
	return say
}
