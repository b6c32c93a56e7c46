package model

import (
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// Owner is who holds table entries: a process and the cgroup it runs in,
// named as an operator knows it (a systemd unit, a container, a pod).
// Every string in it is foreign text (process and cgroup names).
type Owner struct {
	// Comm and PID are the process holding the socket (PID 0: the
	// socket's process was not found, only its cgroup).
	Comm string `json:"comm,omitempty"`
	PID  int    `json:"pid,omitempty"`
	// Group is the unit ("churn.service"), container id, pod UID, or
	// else the cgroup's last part ("user.slice"); Kind says which:
	// "unit", "container", "pod", "cgroup" or "user" (a group a user
	// named, below their own service manager), or "netns" for a network
	// namespace named by its bind mount or inode (model.NamespaceName).
	Group string `json:"group,omitempty"`
	Kind  string `json:"kind,omitempty"`
}

// KnownOwnerKind reports whether k is a Kind tablefull writes: what a
// stream may carry (anything else arrives as "").
func KnownOwnerKind(k string) bool {
	switch k {
	case "unit", "container", "pod", "cgroup", "user", "netns":
		return true
	}
	return false
}

// String is how the screen, the verdict and the report name an owner:
// "duckdb (pid 4242, user.slice)"; a pod, container or namespace by its
// name first, its process as detail: "pod 3f2a-1b (envoy, pid 9)",
// "netns dg-pod (timeout, pid 24297)", "pod 3f2a-1b" when only the cgroup
// is known.
func (o Owner) String() string {
	group := o.Group
	switch o.Kind {
	case "pod", "container", "netns": // a namespace's name comes first, its process is detail
		group = o.Kind + " " + group
		if o.PID != 0 {
			return group + " (" + CommText(o.Comm) + ", pid " + strconv.Itoa(o.PID) + ")"
		}
	}
	if o.PID == 0 {
		switch group {
		case "":
			return "unknown"
		case "/": // a socket of no unit, container or pod: said as people say it
			return "root cgroup"
		}
		return group
	}
	in := "pid " + strconv.Itoa(o.PID)
	if group != "" && group != "/" {
		in += ", " + group
	}
	return CommText(o.Comm) + " (" + in + ")"
}

// CommText is a process's name as tablefull shows it: quoted when it
// holds anything but what a plain program name does, so that a name a
// user chose ("nginx (pid 1)") cannot pose as the "(pid N)" tablefull
// adds.
func CommText(comm string) string {
	for _, r := range comm {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-+/@:", r)) {
			return strconv.Quote(comm)
		}
	}
	if comm == "" {
		return `""`
	}
	return comm
}

// OwnerCount is how many live entries one owner opened (Accepted: took
// in, as a server; a loopback connection counts once, for its opener;
// Forwarded: from another namespace of the host, through this one),
// and the peer most of them go to (or come from, when accepted).
type OwnerCount struct {
	Owner
	Accepted bool `json:"accepted,omitempty"`
	// Forwarded: another network namespace of the host opened them (a
	// pod's traffic through its node): no socket here, its address.
	Forwarded bool `json:"forwarded,omitempty"`
	// Served: requests this owner answered on an unconnected UDP socket
	// (Peer is its "udp/PORT") whose own sockets are gone: the entries
	// are its clients', not the server's doing (a resolver's lookups to
	// dnsmasq).
	Served bool   `json:"served,omitempty"`
	N      int    `json:"n"`
	Peer   string `json:"peer,omitempty"`
	PeerN  int    `json:"peer_n,omitempty"`
}

// Who names the owner as a table of owners lists it: the process, unit,
// container or pod; for entries it served, its clients ("clients of
// dnsmasq (pid 7)"), who make them.
func (c OwnerCount) Who() string {
	if c.Served {
		return "clients of " + c.Owner.String()
	}
	return c.Owner.String()
}

// PeerText says where an owner's entries go, "→ 10.5.5.14:3900 (2,900)",
// or come from when accepted, "← 10.0.0.7:51234 (12)"; "" for none.
func (c OwnerCount) PeerText() string {
	if c.Peer == "" {
		return ""
	}
	arrow := "→ "
	switch {
	case c.Served:
		return "on " + c.Peer + ", their sockets gone (" + units.Int(uint64(c.PeerN)) + ")"
	case c.Accepted:
		arrow = "accepted ← "
	case c.Forwarded:
		arrow = "forwarded → "
	}
	return arrow + c.Peer + " (" + units.Int(uint64(c.PeerN)) + ")"
}

// Owners is who holds the census's entries: the sockets of this network
// namespace joined to its entries by their tuples, the sockets to
// processes and cgroups.
type Owners struct {
	// Top are the owners holding most entries, most first.
	Top []OwnerCount `json:"top"`
	// Unowned counts, by class, the entries no socket of a process here
	// holds and no other namespace of the host opened: the socket closed
	// (an entry outlives it by its hold: TIME_WAIT 120 s, UDP 30 s), or
	// the traffic comes from elsewhere (see the census's sources).
	Unowned ClassCounts `json:"unowned"`
	// Sockets is how many sockets the dump listed.
	Sockets int `json:"sockets"`
	// Note says what limited the attribution (no processes found without
	// root, no cgroup ids on a kernel before 5.8).
	Note string `json:"note,omitempty"`
	// Error says why there is no attribution at all (the rest is empty).
	Error string `json:"error,omitempty"`
}

// OwnersShown bounds the owners a census keeps.
const OwnersShown = 10

// TopOwners orders counts most first (ties by name) and keeps n.
func TopOwners(cs []OwnerCount, n int) []OwnerCount {
	out, _ := tally.TopN(cs, n, func(c OwnerCount) uint64 { return uint64(max(0, c.N)) }, func(a, b OwnerCount) bool { return a.String() < b.String() })
	return out
}

// UnownedText says which entries have no owner and why, largest class
// in display order: "3,000 tcp-closed, 12 udp with no socket here (…)".
func (o Owners) UnownedText() string {
	var parts []string
	for _, c := range AllClasses {
		n := o.Unowned[c]
		if n == 0 {
			continue
		}
		parts = append(parts, units.Int(n)+" "+c.String())
	}
	if len(parts) == 0 && len(o.Top) == 0 {
		return "no entries to own"
	}
	if len(parts) == 0 {
		return "every entry has an owner here"
	}
	return strings.Join(parts, ", ") + " with no socket here (closed and held by their timeout, forwarded, or from elsewhere)"
}

// Dominant is the owner of most of the attributed entries when it holds
// at least share of them all, for the verdict's evidence.
func (o Owners) Dominant(share float64) (OwnerCount, float64, bool) {
	total := 0
	for _, c := range o.Top {
		total += c.N
	}
	total += int(o.Unowned.Total())
	if len(o.Top) == 0 || total == 0 {
		return OwnerCount{}, 0, false
	}
	f := float64(o.Top[0].N) / float64(total)
	return o.Top[0], f, f >= share
}

// DominantShare is the share of a table's entries one owner holds for
// the verdict to name it.
const DominantShare = 0.5

// DominantText is DominantClauses' words, "" when it has none.
func (o *Owners) DominantText() string {
	return verdict.Verdict{Clauses: o.DominantClauses()}.Text()
}

// DominantClauses name the owner holding most of the table when it holds
// at least DominantShare of it: "91 % of the table's entries held by
// duckdb (pid 4242, user.slice) → 10.5.5.14:3900"; none otherwise, or for
// nil. The names are foreign: views sanitise the evidence.
func (o *Owners) DominantClauses() []verdict.Clause {
	if o == nil || o.Error != "" {
		return nil
	}
	c, share, ok := o.Dominant(DominantShare)
	if !ok {
		return nil
	}
	held := verdict.N("share", share*100, verdict.Percent).From("the census's owners", ThisTable+", the census's walk")
	owner := verdict.W("owner", c.Owner.String())
	key := "who.held"
	switch {
	case c.Served:
		return []verdict.Clause{say(verdict.Who, "who.served", held, verdict.W("peer", c.Peer), owner)}
	case c.Accepted:
		key = "who.accepted"
	case c.Forwarded:
		key = "who.forwarded"
	}
	cs := []verdict.Clause{say(verdict.Who, key, held, owner)}
	if c.Peer != "" && c.PeerN*2 > c.N {
		peer := "who.peer.to"
		if c.Accepted {
			peer = "who.peer.from"
		}
		cs = append(cs, say(verdict.Who, peer, verdict.W("peer", c.Peer)).After(" "))
	}
	return cs
}
