package main

import (
	"errors"
	"fmt"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
)

// localTuner is the console's tuning on this host (or the namespace the
// console runs in): the same code as tablefull tune.
type localTuner struct {
	tuner    *sources.Tuner
	pers     sources.Persister
	stateDir string
	// note is shown in the panel (e.g. the lab disables persisting).
	note          string
	noPersistence bool
}

func newLocalTuner(o options) *localTuner {
	return &localTuner{tuner: sources.NewTuner(o.roots), stateDir: o.stateDir,
		pers: sources.Persister{SysctlDir: "/etc/sysctl.d", ModprobeDir: "/etc/modprobe.d", SysctlConf: "/etc/sysctl.conf"}}
}

// Read implements tui.Tuner.
func (l *localTuner) Read() (map[string]string, uint64, error) {
	return l.tuner.Read(), l.tuner.EntryBytes(), nil
}

// Global implements tui.Tuner.
func (l *localTuner) Global() bool { return !l.tuner.InChildNamespace() }

// Note implements tui.Tuner.
func (l *localTuner) Note() string {
	if l.note != "" {
		return l.note
	}
	if !l.Global() {
		return "nf_conntrack_max and hashsize are global: read-only in this namespace, set them from the host"
	}
	return ""
}

// errNoUndo reports an apply that worked but left no undo record.
var errNoUndo = errors.New("no undo record")

// Apply implements tui.Tuner: it applies, then records the values before
// it for Undo.
func (l *localTuner) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	res, err := l.tuner.Apply(changes, count)
	if err != nil {
		return res, err
	}
	live := map[string]string{}
	for _, r := range res {
		live[r.Key] = r.Before
	}
	if err := sources.SaveUndo(l.stateDir, sources.UndoRecord{Live: live}); err != nil {
		return res, fmt.Errorf("%w: %w", errNoUndo, err)
	}
	return res, nil
}

// Persist implements tui.Tuner: it writes the boot-time files and adds
// them to the undo record.
func (l *localTuner) Persist(changes []model.Change) ([]string, []string, error) {
	if l.noPersistence {
		return nil, nil, errPersistDisabled
	}
	files, err := l.pers.Plan(changes)
	if err != nil {
		return nil, nil, err
	}
	if err := l.pers.Write(files); err != nil {
		return nil, nil, err
	}
	rec, _ := sources.LoadUndo(l.stateDir)
	rec.Files = files
	var warnings []string
	if err := sources.SaveUndo(l.stateDir, rec); err != nil {
		warnings = append(warnings, fmt.Errorf("%w: %w", errNoUndo, err).Error())
	}
	var written []string
	for _, f := range files {
		if f.Changed() {
			written = append(written, f.Path)
		}
	}
	return written, append(warnings, l.pers.Shadowed(changes)...), nil
}

// Undo implements tui.Tuner.
func (l *localTuner) Undo() ([]model.KnobResult, error) {
	res, _, err := l.undo()
	return res, err
}

// undo restores the live values and files of the last apply and returns
// the files it restored.
func (l *localTuner) undo() ([]model.KnobResult, []string, error) {
	rec, err := sources.LoadUndo(l.stateDir)
	if err != nil {
		return nil, nil, err
	}
	res, err := l.tuner.Apply(changesTo(rec.Live), 0)
	if err != nil {
		return res, nil, err
	}
	if err := l.pers.Restore(rec.Files); err != nil {
		return res, nil, err
	}
	var restored []string
	for _, f := range rec.Files {
		if f.Changed() {
			restored = append(restored, f.Path)
		}
	}
	return res, restored, sources.DropUndo(l.stateDir)
}

// changesTo is the changes that set every knob to the values given.
func changesTo(values map[string]string) []model.Change {
	var changes []model.Change
	for k, v := range values {
		changes = append(changes, model.Change{Key: k, Proposed: v})
	}
	model.SortChanges(changes)
	return changes
}

// errPersistDisabled is the lab's answer to w.
var errPersistDisabled = persistDisabled{}

type persistDisabled struct{}

func (persistDisabled) Error() string {
	return "persisting to /etc is disabled here (the lab restores the host when it ends)"
}
