package incident

import (
	"time"

	"github.com/tablefull/tablefull/model/entry"
)

// EntriesDeleted is one deletion of entries a recording kept (the
// console's D): when, the filter in conntrack(8)'s words, what it did,
// and its error.
type EntriesDeleted struct {
	At     time.Time
	Filter string
	entry.Deletion
	Error string
}

// maxDeletions is how many deletions an incident lists; the rest are
// counted.
const maxDeletions = 32

// Deleted adds a deletion the recording kept.
func (in *Incident) Deleted(d EntriesDeleted) {
	in.DeletedEntries += uint64(max(0, d.Deleted))
	if len(in.Deletions) >= maxDeletions {
		in.SkippedDeletions++
		return
	}
	in.Deletions = append(in.Deletions, d)
}
