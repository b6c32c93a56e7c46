package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
)

// localTuner is the console's tuning on this host (or the namespace the
// console runs in): the same code as tablefull tune. Every write is
// recorded for undo: what a failed apply or persist wrote before failing
// too.
type localTuner struct {
	tuner    *sources.Tuner
	pers     sources.Persister
	stateDir string
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
	if !l.Global() {
		return "nf_conntrack_max and hashsize are global: read-only in this namespace, set them from the host"
	}
	return ""
}

// errNoUndo reports a write that worked but left no undo record.
var errNoUndo = errors.New("no undo record")

// undoRecord loads the record a write adds to. A record that is there
// but cannot be trusted or read stops the write before anything changes:
// every write has an undo, or nothing is written.
func (l *localTuner) undoRecord() (sources.UndoRecord, error) {
	if err := sources.MakePrivateDir(l.stateDir); err != nil {
		return sources.UndoRecord{}, fmt.Errorf("nothing written: state dir: %w", err)
	}
	rec, err := sources.LoadUndo(l.stateDir)
	if errors.Is(err, sources.ErrNothingToUndo) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("nothing written: %w (remove it after checking it)", err)
	}
	return rec, nil
}

// Apply implements tui.Tuner: it applies, then records the values before
// it for Undo, also when a later knob failed.
func (l *localTuner) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	if err := l.tuner.Check(changes, count); err != nil {
		return nil, err // refused before the state dir is looked at
	}
	rec, err := l.undoRecord()
	if err != nil {
		return nil, err
	}
	res, err := l.tuner.Apply(changes, count)
	if len(res) == 0 {
		return res, err
	}
	before := map[string]string{}
	for _, r := range res {
		before[r.Key] = r.Before
	}
	rec.AddLive(before)
	if serr := sources.SaveUndo(l.stateDir, rec); serr != nil {
		err = errors.Join(err, fmt.Errorf("%w: %w", errNoUndo, serr))
	}
	return res, err
}

// Persist implements tui.Tuner: it writes the boot-time files and adds
// them to the undo record, also when the second file failed.
func (l *localTuner) Persist(changes []model.Change) ([]string, []string, error) {
	rec, err := l.undoRecord()
	if err != nil {
		return nil, nil, err
	}
	files, err := l.pers.Plan(changes)
	if err != nil {
		return nil, nil, err
	}
	written, werr := l.pers.Write(files)
	var paths, warnings []string
	for _, f := range written {
		paths = append(paths, f.Path)
	}
	if len(written) > 0 {
		rec.AddFiles(written)
		if err := sources.SaveUndo(l.stateDir, rec); err != nil {
			warnings = append(warnings, fmt.Errorf("%w: %w", errNoUndo, err).Error())
		}
	}
	if werr != nil {
		if len(written) > 0 {
			werr = fmt.Errorf("%w: %s written (undo restores it), then: %w", sources.ErrPartial, strings.Join(paths, ", "), werr)
		}
		return paths, warnings, werr
	}
	return paths, append(warnings, l.pers.Shadowed(changes)...), nil
}

// Undo implements tui.Tuner.
func (l *localTuner) Undo() ([]model.KnobResult, error) {
	res, _, err := l.undo()
	return res, err
}

// undo restores the live values and files of the last apply and returns
// the files it restored. The record stays until both halves succeed.
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
