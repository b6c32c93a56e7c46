package sources

import (
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// NetnsEntries lists, deletes and follows the entries of the network
// namespace ns (as it was opened: an action finds the file naming
// another namespace refused, nsenter.ErrChanged) from this host, as ListEntries, DeleteEntries and
// EntriesFollower do in their own: a namespace of this host is read and
// changed from the host, as it is tuned, and its deletions journal in
// this host's stateDir. A follow's socket is opened inside the namespace
// and read from anywhere; the events it lost are counted from its
// overruns (/proc/net/netlink here lists the host's sockets).
func NetnsEntries(ns nsenter.Opened, stateDir string) (list func(entry.Filter, string, bool, int) (*entry.List, error), del func(entry.Filter, bool) (entry.Deletion, error),
	follow func(entry.Filter) (entry.Following, error)) {
	list = func(f entry.Filter, sort string, desc bool, limit int) (l *entry.List, err error) {
		err = ns.Do(func() (err error) { l, err = ListEntries(f, sort, desc, limit); return err })
		return l, err
	}
	del = func(f entry.Filter, established bool) (d entry.Deletion, err error) {
		err = ns.Do(func() (err error) { d, err = DeleteEntries(f, established, stateDir); return err })
		return d, err
	}
	follow = func(f entry.Filter) (fol entry.Following, err error) {
		err = ns.Do(func() (err error) { fol, err = EntriesFollower("/proc")(f); return err })
		return fol, err
	}
	return list, del, follow
}
