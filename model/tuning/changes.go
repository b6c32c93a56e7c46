package tuning

import "fmt"

// CheckChanges validates changes that arrive from outside the process
// (the agent's stdin, the command line) before anything is planned or
// written: known keys only, each at most once, every value parsed to
// numbers and re-rendered by ParseValue. The result carries only what we
// rendered: the key as Knobs spells it and the normalised value; Current
// and Why, free text from the sender, are dropped.
func CheckChanges(changes []Change) ([]Change, error) {
	if len(changes) > len(Knobs) {
		return nil, fmt.Errorf("%w: %d changes, at most %d knobs exist", ErrBadValue, len(changes), len(Knobs))
	}
	out := make([]Change, 0, len(changes))
	seen := map[string]bool{}
	for _, c := range changes {
		v, err := ParseValue(c.Key, c.Proposed)
		if err != nil {
			return nil, err
		}
		spec, _ := Spec(c.Key)
		if seen[spec.Key] {
			return nil, fmt.Errorf("%w: %s given twice", ErrBadValue, spec.Key)
		}
		seen[spec.Key] = true
		out = append(out, Change{Key: spec.Key, Proposed: v})
	}
	SortChanges(out)
	return out, nil
}
