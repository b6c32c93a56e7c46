package tune

import (
	"errors"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
)

// LabTuning tunes the incident lab's namespace: global knobs from the
// host namespace (they are read-only inside the lab), per-namespace
// knobs inside it. Persisting to /etc is disabled: the lab restores the
// host when it ends.
type LabTuning struct {
	Host *Sysctls
	// Path is the lab's namespace file.
	Path string
	// Remember keeps a global knob's value before the lab first changes
	// it, for the lab's end (and a repair after a kill) to restore; it
	// is called before the knob is written.
	Remember func(key string) error
	before   map[string]string
}

// labNote says where the lab writes.
const labNote = "lab: nf_conntrack_max is written from the host namespace; persisting to /etc is disabled and the lab restores the host when it ends"

// split is the lab's namespace tuned from the host, as any namespace is.
func (t *LabTuning) split() *Namespaced { return &Namespaced{Host: t.Host, Path: t.Path} }

// Read returns the host's global knobs and the lab's own (tuning.Tuner).
func (t *LabTuning) Read() (tuning.KnobState, error) {
	cur, err := t.split().read()
	return tuning.KnobState{Current: cur, EntryBytes: t.Host.EntryBytes(), Global: true, Note: labNote}, err
}

// Apply writes global knobs from the host, recorded for the lab's end,
// and the others inside the lab (tuning.Tuner).
func (t *LabTuning) Apply(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	global, _ := splitGlobal(changes)
	if t.before == nil {
		cur, err := t.split().read()
		if err != nil {
			return nil, err
		}
		t.before = cur
	}
	for _, c := range global { // recorded before the write: the lab's end and a repair restore it
		if err := t.Remember(c.Key); err != nil {
			return nil, err
		}
	}
	return t.split().write(changes, count)
}

// ErrPersistDisabled is the lab's answer to persisting.
var ErrPersistDisabled = errors.New("persisting to /etc is disabled here (the lab restores the host when it ends)")

// Persist refuses: the lab restores the host when it ends (tuning.Tuner).
func (t *LabTuning) Persist([]tuning.Change) ([]string, []string, error) {
	return nil, nil, ErrPersistDisabled
}

// Undo restores the values before the lab's first apply (tuning.Tuner).
func (t *LabTuning) Undo() ([]knob.Result, error) {
	if t.before == nil {
		return nil, ErrNothingToUndo
	}
	res, err := t.Apply(changesTo(t.before), 0)
	t.before = nil
	return res, err
}
