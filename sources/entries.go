package sources

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
)

// ListEntries is this network namespace's entries that filter matches,
// every one counted and the first limit kept in the order of sort (desc:
// descending), from one streamed dump bounded by a minute: a full table
// costs the rows kept. It needs CAP_NET_ADMIN.
func ListEntries(filter model.EntryFilter, sort string, desc bool, limit int) (*model.EntryList, error) {
	l, err := model.NewEntryList(filter, sort, desc, limit)
	if err != nil {
		return nil, err
	}
	if err := ctnetlink.Dump(time.Minute, func(f model.Flow, _ bool) { l.Add(f) }); err != nil {
		return nil, err
	}
	return l, nil
}
