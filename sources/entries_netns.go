package sources

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns"
)

// NetnsEntries lists and deletes the entries of the network namespace
// at path from this host, as ListEntries and DeleteEntries do in their
// own: a namespace of this host is read and changed from the host, as it
// is tuned, and its deletions journal in this host's stateDir.
func NetnsEntries(path, stateDir string) (list func(model.EntryFilter, string, bool, int) (*model.EntryList, error), del func(model.EntryFilter, bool) (model.Deletion, error)) {
	list = func(f model.EntryFilter, sort string, desc bool, limit int) (l *model.EntryList, err error) {
		err = netns.Enter(path, func() (err error) { l, err = ListEntries(f, sort, desc, limit); return err })
		return l, err
	}
	del = func(f model.EntryFilter, established bool) (d model.Deletion, err error) {
		err = netns.Enter(path, func() (err error) { d, err = DeleteEntries(f, established, stateDir); return err })
		return d, err
	}
	return list, del
}
