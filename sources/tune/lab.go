package tune

import (
	"errors"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/lab"
)

// Lab tunes a lab: global knobs from the host namespace (they are
// read-only inside the lab), per-namespace knobs inside it. Persisting to
// /etc is disabled: the lab restores the host when it ends.
type Lab struct {
	Host   *sources.Tuner
	Lab    *lab.Lab
	before map[string]string
}

// Global reports that the lab writes global knobs from the host (tui.Tuner).
func (t *Lab) Global() bool { return true }

// Note says where the lab writes (tui.Tuner).
func (t *Lab) Note() string {
	return "lab: nf_conntrack_max is written from the host namespace; persisting to /etc is disabled and the lab restores the host when it ends"
}

// split is the lab's namespace tuned from the host, as any namespace is.
func (t *Lab) split() *Namespaced { return &Namespaced{Host: t.Host, Path: t.Lab.NS.Path()} }

// Read returns the host's global knobs and the lab's own (tui.Tuner).
func (t *Lab) Read() (map[string]string, uint64, error) { return t.split().Read() }

// Apply writes global knobs from the host, recorded for the lab's end,
// and the others inside the lab (tui.Tuner).
func (t *Lab) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	global, _ := splitGlobal(changes)
	cur, _, _ := t.Read()
	if t.before == nil {
		t.before = cur
	}
	for _, c := range global { // recorded before the write: the lab's end and a repair restore it
		if err := t.Lab.Remember(labGlobals[c.Key]); err != nil {
			return nil, err
		}
	}
	return t.split().write(changes, count)
}

// ErrPersistDisabled is the lab's answer to persisting.
var ErrPersistDisabled = errors.New("persisting to /etc is disabled here (the lab restores the host when it ends)")

// labGlobals names the global knobs as the lab records them.
var labGlobals = map[string]lab.Global{model.KnobMax: lab.GlobalMax, model.KnobHashsize: lab.GlobalHashsize}

// Persist refuses: the lab restores the host when it ends (tui.Tuner).
func (t *Lab) Persist([]model.Change) ([]string, []string, error) {
	return nil, nil, ErrPersistDisabled
}

// Undo restores the values before the lab's first apply (tui.Tuner).
func (t *Lab) Undo() ([]model.KnobResult, error) {
	if t.before == nil {
		return nil, sources.ErrNothingToUndo
	}
	res, err := t.Apply(changesTo(t.before), 0)
	t.before = nil
	return res, err
}
