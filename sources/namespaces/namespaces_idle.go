package namespaces

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// EmptyRereadEvery is how often, at the most, an empty namespace no
// process is in is read again: after NamespacesEvery at its first empty
// read, twice as long after each next one, up to this (spread by its
// inode). A namespace with a process in it, or with entries, is read at
// every sample; one a process enters is found by the next walk and read
// through it; one that gains entries while no process is in it shows in
// the kernel's count of every namespace's entries (unaccounted).
const EmptyRereadEvery = 10 * time.Minute

// QuietRereadEvery is how often, at the most, a namespace with a process
// in it whose count and drops did not change between its last two reads
// is read again (after NamespacesEvery at first, twice as long after each
// next unchanged read, up to this). One that fills meanwhile shows in the
// kernel's count of every namespace's entries (unaccounted) and every
// namespace is read at once; without that count, none is quiet.
const QuietRereadEvery = 2 * time.Minute

// IdleReadsPerRead bounds how many idle namespaces (empty with no process
// in them, or quiet) are read again at one read, those due longest
// first: entering one costs a thread's setns and a read, and a host with
// thousands of them pays a few a sample, not one per namespace.
const IdleReadsPerRead = 4

// dueIdle is the set of idle namespaces to read at this read: at most
// IdleReadsPerRead of those due, or every one when the kernel holds
// entries no namespace read accounts for (unaccountedFor, from slab: the
// slab's count read once a read).
func (n *Namespaces) dueIdle(now time.Time, capMax, slab uint64, slabRead bool) map[uint64]bool {
	var idle, due []uint64
	for ino, p := range n.known {
		if p.idleFor == 0 {
			continue
		}
		idle = append(idle, ino)
		if !now.Before(p.idleUntil) {
			due = append(due, ino)
		}
	}
	if len(idle) == 0 {
		return nil
	}
	if slabRead && n.unaccountedFor(capMax, slab) {
		due = idle
	} else if len(due) > IdleReadsPerRead {
		slices.SortFunc(due, func(a, b uint64) int { return n.known[a].idleUntil.Compare(n.known[b].idleUntil) })
		due = due[:IdleReadsPerRead]
	}
	out := make(map[uint64]bool, len(due))
	for _, ino := range due {
		out[ino] = true
	}
	return out
}

// unaccountedFor reports whether the kernel's entries of every namespace
// (nf_conntrack's slab objects, in SLUB's sysfs) exceed
// this namespace's count and every other one's as last read by a tenth
// of the cap (512 at least) more than at the last time it said so: an
// idle namespace has gained entries, and every one is read now. Objects
// in per-CPU caches count as active, so the sum reads high by a few
// hundred; the baseline absorbs that.
func (n *Namespaces) unaccountedFor(capMax, slab uint64) bool {
	known, _ := kernelfs.ReadSysctlUint(kernelfs.SysctlPath(n.proc, "net.netfilter.nf_conntrack_count"))
	for _, p := range n.known {
		known += p.count
	}
	var over uint64
	if slab > known {
		over = slab - known
	}
	if over < n.slabBaseline {
		n.slabBaseline = over // entries went: the slack is what is left
	}
	if over < n.slabBaseline+max(capMax/10, 512) {
		return false
	}
	n.slabBaseline = over
	return true
}

// slabEntries reads how many objects nf_conntrack's slab holds, from
// SLUB's sysfs under sys ("144 N0=144"): every namespace's entries (and
// the per-CPU caches'). false where the kernel has no such file.
func slabEntries(sys string) (uint64, bool) {
	v, err := kernelfs.ReadSysctl(filepath.Join(sys, "kernel", "slab", "nf_conntrack", "objects"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(v, " ")
	n, err := strconv.ParseUint(first, 10, 64)
	return n, err == nil
}
