package main

import (
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

// Apply implements tui.Tuner.
func (l *localTuner) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	before := l.tuner.Read()
	res, err := l.tuner.Apply(changes, count)
	if err != nil {
		return res, err
	}
	live := map[string]string{}
	for _, c := range changes {
		live[c.Key] = before[c.Key]
	}
	if err := sources.SaveUndo(l.stateDir, sources.UndoRecord{Live: live}); err != nil {
		return res, err
	}
	return res, nil
}

// Persist implements tui.Tuner.
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
	sources.SaveUndo(l.stateDir, rec)
	var written []string
	for _, f := range files {
		if f.Changed() {
			written = append(written, f.Path)
		}
	}
	return written, l.pers.Shadowed(changes), nil
}

// Undo implements tui.Tuner.
func (l *localTuner) Undo() ([]model.KnobResult, error) {
	rec, err := sources.LoadUndo(l.stateDir)
	if err != nil {
		return nil, err
	}
	var changes []model.Change
	for k, v := range rec.Live {
		changes = append(changes, model.Change{Key: k, Proposed: v})
	}
	model.SortChanges(changes)
	res, err := l.tuner.Apply(changes, 0)
	if err != nil {
		return res, err
	}
	if err := l.pers.Restore(rec.Files); err != nil {
		return res, err
	}
	return res, sources.DropUndo(l.stateDir)
}

// errPersistDisabled is the lab's answer to w.
var errPersistDisabled = persistDisabled{}

type persistDisabled struct{}

func (persistDisabled) Error() string {
	return "persisting to /etc is disabled here (the lab restores the host when it ends)"
}
