package sources

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// UndoRecord is what an apply changed: the live values before it and the
// files it wrote, so that --undo can put both back.
type UndoRecord struct {
	Live  map[string]string `json:"live"`
	Files []FileChange      `json:"files"`
}

const undoFile = "undo.json"

// SaveUndo keeps rec in dir (e.g. /var/lib/tablefull).
func SaveUndo(dir string, rec UndoRecord) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("encode undo record: %w", err)
	}
	return writeAtomic(filepath.Join(dir, undoFile), b)
}

// ErrNothingToUndo reports that no apply left an undo record.
var ErrNothingToUndo = errors.New("nothing to undo")

// LoadUndo reads the record SaveUndo kept.
func LoadUndo(dir string) (UndoRecord, error) {
	var rec UndoRecord
	b, err := os.ReadFile(filepath.Join(dir, undoFile))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, ErrNothingToUndo
	}
	if err != nil {
		return rec, fmt.Errorf("read undo record: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("decode undo record %s: %w", filepath.Join(dir, undoFile), err)
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
