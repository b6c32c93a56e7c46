package sources

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// entriesDump bounds one walk of the table.
const entriesDump = time.Minute

// LabelsFile is conntrack(8)'s own table of label names, the path
// libnetfilter_conntrack reads (conntrack has no option for it): -l
// reads the names conntrack -L -l reads. Tests point it elsewhere.
var LabelsFile = "/etc/xtables/connlabel.conf"

// maxLabelsFile bounds the read of LabelsFile: 128 labels are a few KiB.
const maxLabelsFile = 64 << 10

// withLabels is f with its label names looked up in LabelsFile, when it
// names any: on the host whose entries it filters, as conntrack does.
func withLabels(f entry.Filter) (entry.Filter, error) {
	if len(f.Labels) == 0 {
		return f, nil
	}
	file, err := os.Open(LabelsFile)
	if err != nil {
		return f, fmt.Errorf("%w: --label: %w (conntrack(8)'s label names)", entry.ErrBadFilter, err)
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, maxLabelsFile))
	if err != nil {
		return f, fmt.Errorf("%w: --label: %w", entry.ErrBadFilter, err)
	}
	return f.WithLabelBits(entry.ParseConnlabel(string(b)))
}

// ListEntries is this network namespace's entries that filter matches,
// every one counted and the first limit kept in the order of sort (desc:
// descending), from one streamed dump bounded by a minute: a full table
// costs the rows kept. It needs CAP_NET_ADMIN.
func ListEntries(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
	filter, err := withLabels(filter)
	if err != nil {
		return nil, err
	}
	l, err := entry.NewList(filter, sort, desc, limit)
	if err != nil {
		return nil, err
	}
	if err := ctnetlink.Dump(entriesDump, func(f model.Flow, _ bool) { l.Add(f) }); err != nil {
		return nil, err
	}
	return l, nil
}

// DeleteEntries deletes this network namespace's entries that filter
// matches, over ctnetlink, as every surface does (tablefull entries
// --delete, the console's D): refused, nothing deleted, for an empty
// filter or established connections unless established
// (entry.DeleteRefusal, decided on this dump's own counts); then the
// table is read back, and the deletion appended to the journal in
// stateDir (JournalName): when, by whom, the filter and the counts.
func DeleteEntries(filter entry.Filter, established bool, stateDir string) (entry.Deletion, error) {
	d := entry.Deletion{StillMatch: -1}
	filter, err := withLabels(filter)
	if err != nil {
		return d, err
	}
	l, err := entry.NewList(filter, "", false, 0)
	if err != nil {
		return d, err
	}
	if err := ctnetlink.Dump(entriesDump, func(f model.Flow, _ bool) { l.Add(f) }); err != nil {
		return d, err
	}
	d.Matched = l.Matched
	if err := entry.DeleteRefusal(l, established); err != nil {
		return d, err
	}
	err = deleteAsDumped(filter, established, &d)
	if after, rerr := ListEntries(filter, "", false, 0); rerr == nil {
		d.StillMatch = after.Matched
	}
	if jerr := journal(stateDir, filter, d, err); jerr != nil && err == nil {
		err = fmt.Errorf("the deletion went, but is not in the journal: %w", jerr)
	}
	return d, err
}

// deleteAsDumped deletes, as a second dump lists them, the entries filter
// matches: each checked as it is now (an entry established since the
// first dump is not deleted unless established) and deleted by its id
// (one that took its tuple since is not). Nothing is kept per entry: a
// table of millions costs a socket, not a list.
func deleteAsDumped(filter entry.Filter, established bool, d *entry.Deletion) error {
	dl, err := ctnetlink.NewDeleter()
	if err != nil {
		return err
	}
	defer dl.Close()
	var failed error
	err = ctnetlink.Dump(entriesDump, func(f model.Flow, _ bool) {
		if failed != nil || !filter.Match(f) || (!established && entry.IsEstablished(f)) {
			return
		}
		failed = dl.Delete(f, d)
	})
	return errors.Join(failed, err)
}

// JournalName is the deletions' journal in the state directory.
const JournalName = "entries.journal"

// journal appends one line for a deletion: when, by which uid, in which
// network namespace, the filter, what it did and its error.
func journal(stateDir string, filter entry.Filter, d entry.Deletion, failed error) error {
	line := struct {
		At  time.Time `json:"at"`
		UID int       `json:"uid"`
		// NetNS is the table's namespace ("net:[4026531840]"): a
		// namespace's deletion made from the host is journalled here too.
		NetNS  string `json:"netns,omitempty"`
		Filter string `json:"filter"`
		entry.Deletion
		Error string `json:"error,omitempty"`
	}{At: time.Now().UTC(), UID: os.Getuid(), Filter: filter.String(), Deletion: d}
	line.NetNS, _ = os.Readlink("/proc/thread-self/ns/net") // the thread that deleted: DeleteEntries runs on one
	if failed != nil {
		line.Error = failed.Error()
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	return kernelfs.AppendPrivate(filepath.Join(stateDir, JournalName), append(b, '\n'))
}

// EntriesFollower follows this network namespace's entries as the
// kernel makes and ends them (the entries panel's f); procRoot is where
// the event socket's drops are read. It needs CAP_NET_ADMIN.
func EntriesFollower(procRoot string) func(entry.Filter) (entry.Following, error) {
	return func(f entry.Filter) (entry.Following, error) {
		f, err := withLabels(f)
		if err != nil {
			return nil, err
		}
		fol, err := ctnetlink.Follow(procRoot, f)
		if err != nil {
			return nil, err
		}
		return fol, nil
	}
}

// EntriesDeleterIn is DeleteEntries journalling in stateDir, for a
// console's D.
func EntriesDeleterIn(stateDir string) func(entry.Filter, bool) (entry.Deletion, error) {
	return func(f entry.Filter, established bool) (entry.Deletion, error) {
		return DeleteEntries(f, established, stateDir)
	}
}
