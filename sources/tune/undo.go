package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// UndoRecord is what tablefull changed since the last undo: the live
// values before its first change of each knob and the files it wrote
// (each with the contents before its first write), so that undo puts the
// host back as it found it.
type UndoRecord struct {
	Live  map[string]string `json:"live"`
	Files []FileChange      `json:"files"`
	// Step is the last apply of nf_conntrack_max: a one-shot plan sizes
	// the next step on what the count did since.
	Step *tuning.Step `json:"step,omitempty"`
}

// AddLive records the values knobs had before a change, keeping older
// before-values of the same knob.
func (r *UndoRecord) AddLive(before map[string]string) {
	if r.Live == nil {
		r.Live = map[string]string{}
	}
	for k, v := range before {
		if _, ok := r.Live[k]; !ok {
			r.Live[k] = v
		}
	}
}

// AddFiles records files written, keeping the contents before the first
// write of each and the newest contents written.
func (r *UndoRecord) AddFiles(written []FileChange) {
	for _, w := range written {
		i := 0
		for i < len(r.Files) && r.Files[i].Path != w.Path {
			i++
		}
		if i == len(r.Files) {
			r.Files = append(r.Files, w)
			continue
		}
		r.Files[i].New = w.New
	}
}

// Empty reports whether the record holds nothing to undo.
func (r UndoRecord) Empty() bool { return len(r.Live) == 0 && len(r.Files) == 0 }

const (
	undoFile = "undo.json"
	// maxUndo bounds the record read back: two small files and a few knobs.
	maxUndo = 16 << 20
)

// SaveUndo keeps rec in dir (e.g. /var/lib/tablefull), created 0700; the
// record is written 0600.
func SaveUndo(dir string, rec UndoRecord) error {
	if err := kernelfs.MakePrivateDir(dir); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode undo record: %w", err)
	}
	return kernelfs.WriteAtomic(filepath.Join(dir, undoFile), b, 0o600)
}

// ErrNothingToUndo reports that no apply left an undo record.
var ErrNothingToUndo = errors.New("nothing to undo")

// LoadUndo reads the record SaveUndo kept, after checking that nobody
// else could have written it (CheckPrivate). Its knob values and file
// paths are checked again where they are used (Tuner.Apply,
// Persister.Restore).
func LoadUndo(dir string) (UndoRecord, error) {
	var rec UndoRecord
	path := filepath.Join(dir, undoFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return rec, ErrNothingToUndo
	}
	if err := kernelfs.CheckPrivate(path); err != nil {
		return rec, fmt.Errorf("undo record: %w", err)
	}
	b, err := kernelfs.ReadBounded(path, maxUndo)
	if err != nil {
		return rec, fmt.Errorf("undo record: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("decode undo record %s: %w", path, err)
	}
	return rec, nil
}

// DropUndo removes the record after a successful undo.
func DropUndo(dir string) error {
	err := os.Remove(filepath.Join(dir, undoFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// UndoLive restores through w the live values the record in dir keeps
// and drops the record: a record of knobs only (the lab's). Nothing
// recorded is ErrNothingToUndo.
func UndoLive(dir string, w *Sysctls) ([]knob.Result, error) {
	rec, err := LoadUndo(dir)
	if err != nil {
		return nil, err
	}
	res, err := w.Apply(changesTo(rec.Live), 0)
	if err != nil {
		return res, err
	}
	return res, DropUndo(dir)
}

// RecordLive adds to the record in dir the value key has now through w,
// unless the record holds one already: the value to put back.
func RecordLive(dir string, w *Sysctls, key string) error {
	rec, err := LoadUndo(dir)
	if err != nil && !errors.Is(err, ErrNothingToUndo) {
		return err
	}
	if _, ok := rec.Live[key]; ok {
		return nil
	}
	v, ok := w.Read()[key]
	if !ok {
		return fmt.Errorf("read %s: %w", key, kernelfs.ErrUnavailable)
	}
	rec.AddLive(map[string]string{key: v})
	return SaveUndo(dir, rec)
}
