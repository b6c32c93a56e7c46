// Package ctnetlink talks to conntrack over netlink: its per-CPU
// statistics, the entry events (new and destroyed entries, subscribed
// only while the fast-sampling rule holds), the entries user space deletes
// (the flush watch), the dump of the whole table,
// and the one parser of a flow message. It needs CAP_NET_ADMIN, reads the
// caller's network namespace, and never changes the table.
package ctnetlink
