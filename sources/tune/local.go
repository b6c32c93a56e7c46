package tune

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Local is the tuning of this host (or the namespace the process runs
// in): the console's panel, tablefull tune and the agent. Every write is
// recorded for undo: what a failed apply or persist wrote before failing
// too.
type Local struct {
	Tuner *Sysctls
	Pers  Persister
	// StateDir keeps the undo record (e.g. /var/lib/tablefull).
	StateDir string
	// ProcRoot is where managers of the knobs (kube-proxy) are looked
	// for; "" looks nowhere.
	ProcRoot string
}

// NewLocal tunes the host under roots, persisting under roots.Etc.
func NewLocal(roots kernelfs.Roots, stateDir string) *Local {
	return &Local{Tuner: NewSysctls(roots), StateDir: stateDir, ProcRoot: roots.Proc, Pers: PersisterAt(roots)}
}

// Read returns the knobs, the bytes per entry, where the global knobs
// can be written from, who else writes them and the last step recorded
// (tuning.Tuner).
func (l *Local) Read() (tuning.KnobState, error) {
	k := tuning.KnobState{Current: l.Tuner.Read(), EntryBytes: l.Tuner.EntryBytes(), Global: !l.Tuner.InChildNamespace(), Owners: l.owners()}
	if !k.Global {
		k.Note = "nf_conntrack_max and hashsize are global: read-only in this namespace; the host applies them"
	}
	if rec, err := LoadUndo(l.StateDir); err == nil {
		k.LastStep = rec.Step
	}
	return k, nil
}

// owners says who else writes the knobs here: kube-proxy rewrites its
// conntrack knobs at its next start.
func (l *Local) owners() map[string]string {
	if l.ProcRoot == "" {
		return nil
	}
	return OwnerNotes(FindManagers(l.ProcRoot))
}

// ErrNoUndo reports a write that worked but left no undo record.
var ErrNoUndo = errors.New("no undo record")

// undoRecord loads the record a write adds to. A record that is there
// but cannot be trusted or read stops the write before anything changes:
// every write has an undo, or nothing is written.
func (l *Local) undoRecord() (UndoRecord, error) {
	if err := kernelfs.MakePrivateDir(l.StateDir); err != nil {
		return UndoRecord{}, fmt.Errorf("nothing written: state dir: %w", err)
	}
	rec, err := LoadUndo(l.StateDir)
	if errors.Is(err, ErrNothingToUndo) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("nothing written: %w (remove it after checking it)", err)
	}
	return rec, nil
}

// Apply implements tuning.Tuner: the values before it are recorded for
// Undo before anything is written (a process killed half-way leaves its
// undo), then the knobs are written and the step kept.
func (l *Local) Apply(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	if err := l.Tuner.Check(changes, count); err != nil {
		return nil, err // refused before the state dir is looked at
	}
	rec, err := l.undoRecord()
	if err != nil {
		return nil, err
	}
	return applyRecorded(l.StateDir, rec, l.Tuner.Read(), changes, count, func() ([]knob.Result, error) {
		return l.Tuner.Apply(changes, count)
	})
}

// applyRecorded keeps the values before changes in rec, in dir, before
// write runs; then the step of nf_conntrack_max it made. A record that
// cannot be kept stops the write before anything changes: every write
// has its undo, or nothing is written.
func applyRecorded(dir string, rec UndoRecord, before map[string]string, changes []tuning.Change, count uint64, write func() ([]knob.Result, error)) ([]knob.Result, error) {
	was := map[string]string{}
	for _, c := range changes {
		if v, ok := before[c.Key]; ok {
			was[c.Key] = v
		}
	}
	rec.AddLive(was)
	if err := SaveUndo(dir, rec); err != nil {
		return nil, fmt.Errorf("nothing written: %w: %w", ErrNoUndo, err)
	}
	res, err := write()
	if len(res) == 0 {
		return res, err
	}
	if step := tuning.StepOf(time.Now(), before, changes, count); step != nil && written(res, knob.Max) {
		rec.Step = step
		if serr := SaveUndo(dir, rec); serr != nil {
			err = errors.Join(err, fmt.Errorf("keep the step: %w", serr))
		}
	}
	return res, err
}

// written reports whether key is among the results of an apply.
func written(res []knob.Result, key string) bool {
	for _, r := range res {
		if r.Key == key {
			return true
		}
	}
	return false
}

// Persist implements tuning.Tuner: it writes the boot-time files and adds
// them to the undo record, also when a later file failed; its first note
// says how they apply at boot on this kernel.
func (l *Local) Persist(changes []tuning.Change) ([]string, []string, error) {
	paths, warnings, err := l.PersistFiles(changes)
	if len(paths) > 0 {
		warnings = append([]string{l.Pers.BootNote()}, warnings...)
	}
	return paths, warnings, err
}

// PersistFiles writes the files and records them for undo (Persist).
func (l *Local) PersistFiles(changes []tuning.Change) ([]string, []string, error) {
	rec, err := l.undoRecord()
	if err != nil {
		return nil, nil, err
	}
	files, err := l.Pers.Plan(changes)
	if err != nil {
		return nil, nil, err
	}
	written, werr := l.Pers.Write(files)
	var paths, warnings []string
	for _, f := range written {
		paths = append(paths, f.Path)
	}
	if len(written) > 0 {
		rec.AddFiles(written)
		if err := SaveUndo(l.StateDir, rec); err != nil {
			warnings = append(warnings, fmt.Errorf("%w: %w", ErrNoUndo, err).Error())
		}
	}
	if werr != nil {
		if len(written) > 0 {
			werr = fmt.Errorf("%w: %s written (undo restores it), then: %w", ErrPartial, strings.Join(paths, ", "), werr)
		}
		return paths, warnings, werr
	}
	return paths, append(warnings, l.Pers.Shadowed(changes)...), nil
}

// Undo restores what tablefull changed (tuning.Tuner).
func (l *Local) Undo() ([]knob.Result, error) {
	res, _, err := l.UndoFiles()
	return res, err
}

// UndoFiles restores the live values and files of the last apply and
// returns the files it restored. The record stays until both halves
// succeed.
func (l *Local) UndoFiles() ([]knob.Result, []string, error) {
	rec, err := LoadUndo(l.StateDir)
	if err != nil {
		return nil, nil, err
	}
	res, err := l.Tuner.Apply(changesTo(rec.Live), 0)
	if err != nil {
		return res, nil, err
	}
	if err := l.Pers.Restore(rec.Files); err != nil {
		return res, nil, err
	}
	var restored []string
	for _, f := range rec.Files {
		if f.Changed() {
			restored = append(restored, f.Path)
		}
	}
	return res, restored, DropUndo(l.StateDir)
}

// changesTo is the changes that set every knob to the values given.
func changesTo(values map[string]string) []tuning.Change {
	var changes []tuning.Change
	for k, v := range values {
		changes = append(changes, tuning.Change{Key: k, Proposed: v})
	}
	tuning.SortChanges(changes)
	return changes
}
