package recording

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/remote/stream"
)

// EventDeleted is the event a recording keeps of a deletion of entries
// (the console's D): its Text is a DeletedRecord as JSON.
const EventDeleted = "delete"

// DeletedRecord is a deletion as a recording keeps it: the filter in
// conntrack(8)'s words, what it did, and its error.
type DeletedRecord struct {
	Filter string `json:"filter"`
	entry.Deletion
	Error string `json:"error,omitempty"`
}

// maxDeletedCount bounds each count a recording's deletion may claim:
// more than any table holds is not one.
const maxDeletedCount = 1 << 31

// ParseDeleted reads a recorded deletion, checked as foreign input: the
// filter must be one tablefull takes, and is written back in its own
// words; each count is bounded; the error is sanitised.
func ParseDeleted(text string) (DeletedRecord, error) {
	var r DeletedRecord
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return DeletedRecord{}, fmt.Errorf("a recorded deletion: %w", err)
	}
	args, err := entry.FilterWords(r.Filter)
	if err != nil {
		return DeletedRecord{}, err
	}
	f, err := entry.ParseFilter(args)
	if err != nil {
		return DeletedRecord{}, err
	}
	r.Filter = f.String()
	for _, n := range []*int{&r.Matched, &r.Deleted, &r.Gone, &r.Skipped, &r.StillMatch} {
		if *n < -1 || *n > maxDeletedCount {
			return DeletedRecord{}, fmt.Errorf("a recorded deletion counts %d entries", *n)
		}
	}
	r.Error = safe.Text(r.Error, safe.MaxText)
	return r, nil
}

// Deleted records a deletion of entries and what it did, so a report of
// the recording lists it. Nothing is written when not recording.
func (t *Tee) Deleted(at time.Time, filter entry.Filter, d entry.Deletion, failed error) error {
	rec := DeletedRecord{Filter: filter.String(), Deletion: d}
	if failed != nil {
		rec.Error = failed.Error()
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("record the deletion: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.enc == nil {
		return nil
	}
	if err := t.enc.Event(stream.Event{Time: at, Type: EventDeleted, Text: string(b)}); err != nil {
		t.stopLocked()
		return fmt.Errorf("recording stopped: %w", err)
	}
	return nil
}
