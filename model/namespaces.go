package model

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/verdict"
)

// MaxNamespaceRows bounds the namespaces a sample carries by name: the
// fullest, the rest counted. A node of 500 pods costs a sample no more.
const MaxNamespaceRows = 20

// NetNS is one of the host's other network namespaces, read from a
// process inside it: its table's count and drops (the cap is the one
// global nf_conntrack_max).
type NetNS struct {
	Inode uint64 `json:"inode"`
	// Name says what the namespace is: its `ip netns` name, the pod or
	// container it belongs to, a systemd unit, or the command of the
	// process read; Kind which of those ("netns", "pod", "container",
	// "unit", "user", "process"). Foreign text: sanitise before showing.
	Name string `json:"name"`
	Kind string `json:"kind"`
	PID  int    `json:"pid"`
	// Path is the namespace's bind mount when no process is in it (PID
	// 0): what it is read and opened through. Local only: a stream's is
	// never taken.
	Path string `json:"path,omitempty"`
	// Count is the namespace's entries; Drops its drop counter summed
	// over CPUs (cumulative, since the namespace began): the packets its
	// table lost. InsertDrops are those of Drops that insert_failed
	// accounts for (an unresolved clash, or a NAT that found no free
	// tuple: the kernel counts both), not a full table's. early_drop is
	// in neither: an eviction lets the packet in.
	Count       uint64 `json:"count"`
	Drops       uint64 `json:"drops"`
	InsertDrops uint64 `json:"insert_drops,omitempty"`
	// ChainTooLong are its inserts the kernel refused for a hash chain
	// past its limit (chaintoolong, summed over CPUs, cumulative): the
	// hash is one for every namespace, so they are the host's to fix.
	// Read as the drops are.
	ChainTooLong uint64 `json:"chain_too_long,omitempty"`
	// Peak is the highest count the fast sampling saw since the previous
	// sample (0: not sampled fast, the count is all there is).
	Peak uint64 `json:"peak,omitempty"`
	// DropsRead says Drops was read: only namespaces near the cap, or
	// dropping, have their drops read (the whole per-CPU file).
	DropsRead bool `json:"drops_read,omitempty"`
}

// Label is the namespace as a verdict names it: "netns web-7",
// "pod 3f2a…".
func (n NetNS) Label() string {
	if n.Kind == "" {
		return safe.Text(n.Name, 48)
	}
	return n.Kind + " " + safe.Text(n.Name, 48)
}

// NamespaceName names a network namespace the one way every surface
// does (the namespaces panel, the census's forwarded entries, the
// verdicts, the exporter's labels, the report): its pod, else its
// container (group and groupKind are what a process's cgroup in it says,
// "" when nothing), else the name of a bind mount of it, else its inode.
// The processes in it are detail after the name, never the name.
func NamespaceName(group, groupKind, mount string, inode uint64) (name, kind string) {
	switch {
	case (groupKind == "pod" || groupKind == "container") && group != "":
		return group, groupKind
	case mount != "":
		return mount, "netns"
	}
	return strconv.FormatUint(inode, 10), "netns"
}

// Within says what the namespace is read through: "pid 17447", or "no
// process in it" for one only a bind mount keeps.
func (n NetNS) Within() string {
	if n.PID <= 0 {
		return "no process in it"
	}
	return fmt.Sprintf("pid %d", n.PID)
}

// Namespaces are the host's other network namespaces at a sample: the
// fullest MaxNamespaceRows, most full first, and how many more were read
// (Others, with OthersEntries between them). Note says what could not be
// read (other users' processes, unprivileged).
type Namespaces struct {
	Rows          []NetNS `json:"rows,omitempty"`
	Others        int     `json:"others,omitempty"`
	OthersEntries uint64  `json:"others_entries,omitempty"`
	// Unread counts the namespaces not read at all: over the cap of
	// those kept between walks (users' own go first).
	Unread int    `json:"unread,omitempty"`
	Note   string `json:"note,omitempty"`
	// Denied says namespaces were missed for want of a privilege: other
	// users' processes not readable (no CAP_SYS_PTRACE), or a namespace
	// no process is in not entered (no CAP_SYS_ADMIN); Note says which.
	Denied bool `json:"denied,omitempty"`
}

// SortNamespaces orders rows most full first (then by name, then as
// given) and keeps MaxNamespaceRows of them, counting the rest. Only the
// kept rows are sorted: each other row is compared with the least full
// kept so far, so a host of a thousand namespaces costs about one
// comparison per row. The rows beyond the kept ones are left in no order.
func SortNamespaces(rows []NetNS) Namespaces {
	k := min(len(rows), MaxNamespaceRows)
	slices.SortStableFunc(rows[:k], compareFullness)
	for i := k; i < len(rows); i++ {
		if compareFullness(rows[i], rows[k-1]) >= 0 {
			continue
		}
		rows[i], rows[k-1] = rows[k-1], rows[i]
		for j := k - 1; j > 0 && compareFullness(rows[j], rows[j-1]) < 0; j-- { // after the equal ones: they came first
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	out := Namespaces{Rows: rows[:k]}
	for _, r := range rows[k:] {
		out.Others++
		out.OthersEntries += r.Count
	}
	return out
}

// compareFullness orders a before b when its table holds more entries,
// or as many and its name sorts first.
func compareFullness(a, b NetNS) int {
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// FullNS is a namespace whose table is full: at the cap, or dropping.
type FullNS struct {
	NS NetNS
	// Drops are the drops its full table made since the previous sample
	// (0 when it only sits at the cap); InsertDrops those made on
	// inserting an entry (a clash, a NAT out of tuples).
	Drops, InsertDrops uint64
	// ChainTooLong are its inserts refused for a long chain since the
	// previous sample.
	ChainTooLong uint64
}

// OtherEntries is how many entries the host's other namespaces hold, as
// read: every namespace's entries go into one hash table
// (nf_conntrack_hash; hash_conntrack_raw mixes the namespace into the
// hash), so chains are as deep as the sum over namespaces makes them.
// ok is false when the namespaces were not read; namespaces not read at
// all (Unread) are not in it.
func OtherEntries(s Sample) (n uint64, ok bool) {
	ns := s.Namespaces
	if ns == nil {
		return 0, false
	}
	for _, r := range ns.Rows {
		n += r.Count
	}
	return n + ns.OthersEntries, true
}

// TableDrops are the drops a namespace's table made for being full: its
// drop counter less what insert_failed accounts for.
func (n NetNS) TableDrops() uint64 { return n.Drops - min(n.InsertDrops, n.Drops) }

// FullNamespaces are the namespaces of cur that are full — at the cap, or
// dropping for a full table since prev — most dropping first; insert are
// the others that dropped on inserting an entry, which no cap frees. A
// namespace new since prev counts only its count: its drops since it
// began are not this interval's. A count that touched the cap between
// reads with nothing dropped is not full: the kernel let every packet in.
func FullNamespaces(prev, cur *Namespaces, max uint64) (full, insert []FullNS) {
	if cur == nil || max == 0 {
		return nil, nil
	}
	before := map[uint64]NetNS{}
	if prev != nil {
		for _, r := range prev.Rows {
			if r.DropsRead {
				before[r.Inode] = r
			}
		}
	}
	for _, r := range cur.Rows {
		var d FullNS
		if b, ok := before[r.Inode]; ok && r.DropsRead {
			d.Drops, d.InsertDrops = Increase(b.TableDrops(), r.TableDrops()), Increase(b.InsertDrops, r.InsertDrops)
		}
		d.NS = r
		switch {
		case r.Count >= max || d.Drops > 0:
			full = append(full, d)
		case d.InsertDrops > 0:
			insert = append(insert, d)
		}
	}
	sort.SliceStable(full, func(i, j int) bool { return full[i].Drops > full[j].Drops })
	sort.SliceStable(insert, func(i, j int) bool { return insert[i].InsertDrops > insert[j].InsertDrops })
	return full, insert
}

// ChainsNamespaces are the namespaces of cur whose inserts met a hash
// chain past the kernel's limit since prev, most first. The hash is one
// for all namespaces: another's chain-too-long is this host's hashsize.
func ChainsNamespaces(prev, cur *Namespaces) []FullNS {
	if prev == nil || cur == nil {
		return nil
	}
	before := map[uint64]NetNS{}
	for _, r := range prev.Rows {
		if r.DropsRead {
			before[r.Inode] = r
		}
	}
	var out []FullNS
	for _, r := range cur.Rows {
		if b, ok := before[r.Inode]; ok && r.DropsRead && r.ChainTooLong > b.ChainTooLong {
			out = append(out, FullNS{NS: r, ChainTooLong: r.ChainTooLong - b.ChainTooLong})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ChainTooLong > out[j].ChainTooLong })
	return out
}

// Describe is the full namespace in the verdict's words: "in pod 3f2a…
// (pid 4242) — 300 / 300 entries, 120 drops".
func (f FullNS) Describe(max uint64) string { return f.Clause(max).Text() }

// NSFacts are a namespace's name and what it is read through, and the
// scope of its numbers.
func NSFacts(n NetNS) ([]verdict.Fact, string) {
	return []verdict.Fact{verdict.W("netns", n.Label()), verdict.W("within", n.Within())}, n.Label()
}

// Clause is Describe's clause. A namespace whose count reads below the
// cap was put here by its drops, or by a peak at the cap: that is what
// it prints, never a count below the cap as full.
func (f FullNS) Clause(max uint64) verdict.Clause {
	facts, scope := NSFacts(f.NS)
	facts = append(facts, verdict.N("cap", max, verdict.Entries).From("nf_conntrack_max (every namespace's cap)", "every namespace"),
		verdict.N("ns drops", f.Drops, verdict.Packets).From("its conntrack -S drop", scope+", since the previous sample"))
	count := verdict.N("ns count", f.NS.Count, verdict.Entries).From("its nf_conntrack_count", scope)
	if f.NS.Count < max && f.NS.Peak >= max {
		return say(verdict.Lead, "netns.full-peak",
			append(facts, count, verdict.N("ns peak", f.NS.Peak, verdict.Entries).From("its highest nf_conntrack_count read", scope+", since the previous sample"))...)
	}
	return say(verdict.Lead, "netns.full", append(facts, count)...)
}
