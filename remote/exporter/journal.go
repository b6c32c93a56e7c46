package exporter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// openRegular opens path with flags without blocking on a FIFO or taking
// a terminal (O_NONBLOCK, O_NOCTTY), creating it 0644 under O_CREATE,
// and refuses anything but a regular file: the exporter runs as root
// and the files it names may sit where a user can plant another.
func openRegular(path string, flags int) (*os.File, error) {
	f, err := os.OpenFile(path, flags|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// Journal follows the journal of deletions of entries (tablefull
// entries --delete and the console's D append a line each to it in the
// state directory): the entries deleted in all, read as the file grows,
// a bounded piece per scrape. Its lines are foreign input: each is
// bounded, and a count no table holds is not counted.
type Journal struct {
	// Path is the journal's file.
	Path string

	mu      sync.Mutex
	offset  int64
	deleted float64
	// skipping is a line too long being passed over to its end.
	skipping bool
	partial  []byte
}

// Bounds of one read of the journal: a line longer than maxJournalLine
// is not a deletion tablefull wrote; a scrape reads at most
// maxJournalRead of it, and the next goes on.
const (
	maxJournalLine  = 4 << 10
	maxJournalRead  = 1 << 20
	maxJournalCount = 1 << 31
)

// Deleted is the entries deleted in all; ok is false when the journal's
// directory cannot be read here (the state directory is not this
// exporter's to see: not known, not 0). A journal not yet written in a
// directory that can be read is 0: nothing was deleted.
func (j *Journal) Deleted() (total float64, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	f, err := openRegular(j.Path, os.O_RDONLY|syscall.O_NOFOLLOW) // in a state directory a user may have been given: a planted FIFO would hang every scrape, a link read another file
	if errors.Is(err, fs.ErrNotExist) {
		if _, derr := os.Stat(filepath.Dir(j.Path)); derr == nil {
			j.offset, j.deleted, j.partial, j.skipping = 0, 0, nil, false
			return 0, true
		}
		return 0, false
	}
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return 0, false
	} else if st.Size() < j.offset { // truncated or replaced: counted again from its start
		j.offset, j.deleted, j.partial, j.skipping = 0, 0, nil, false
	}
	buf := make([]byte, maxJournalRead)
	n, err := f.ReadAt(buf, j.offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return j.deleted, true
	}
	j.offset += int64(n)
	j.take(buf[:n])
	return j.deleted, true
}

// take folds read bytes in: each whole line is a deletion.
func (j *Journal) take(b []byte) {
	for len(b) > 0 {
		line, rest, whole := bytes.Cut(b, []byte("\n"))
		b = rest
		if !whole {
			if j.skipping || len(j.partial)+len(line) > maxJournalLine {
				j.partial, j.skipping = nil, true
			} else {
				j.partial = append(j.partial, line...)
			}
			return
		}
		if j.skipping || len(j.partial)+len(line) > maxJournalLine {
			j.partial, j.skipping = nil, false
			continue
		}
		j.count(append(j.partial, line...))
		j.partial = nil
	}
}

// count adds one journal line's deleted entries.
func (j *Journal) count(line []byte) {
	var d struct {
		Deleted int64 `json:"deleted"`
	}
	if json.Unmarshal(line, &d) == nil && d.Deleted >= 0 && d.Deleted <= maxJournalCount {
		j.deleted += float64(d.Deleted)
	}
}
