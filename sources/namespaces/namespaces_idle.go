package namespaces

import (
	"strconv"
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

// markDue marks the idle namespaces to read at this read (nsProc.due):
// at most IdleReadsPerRead of those due, those due longest first, or
// every one when the kernel holds entries no namespace read accounts for
// (unaccountedFor, from slab: the slab's count read once a read). One
// pass, no sort: a host of a thousand idle namespaces pays a comparison
// or two for each.
func (n *Namespaces) markDue(now time.Time, capMax, slab uint64, slabRead bool) {
	var first [IdleReadsPerRead]*nsProc // due longest first
	due, idle := 0, 0
	for _, p := range n.known {
		if p.idleFor == 0 {
			continue
		}
		idle++
		if now.Before(p.idleUntil) {
			continue
		}
		if due < len(first) {
			due++
		} else if !p.idleUntil.Before(first[len(first)-1].idleUntil) {
			continue
		}
		j := due - 1
		for ; j > 0 && p.idleUntil.Before(first[j-1].idleUntil); j-- {
			first[j] = first[j-1]
		}
		first[j] = p
	}
	if idle > 0 && slabRead && n.unaccountedFor(capMax, slab) {
		for _, p := range n.known {
			p.due = p.idleFor > 0
		}
		return
	}
	for _, p := range first[:due] {
		p.due = true
	}
}

// unaccountedFor reports whether the kernel's entries of every namespace
// (nf_conntrack's slab objects, in SLUB's sysfs) exceed
// this namespace's count and every other one's as last read by a tenth
// of the cap (512 at least) more than at the last time it said so: an
// idle namespace has gained entries, and every one is read now. Objects
// in per-CPU caches count as active, so the sum reads high by a few
// hundred; the baseline absorbs that.
func (n *Namespaces) unaccountedFor(capMax, slab uint64) bool {
	known, _ := leadingUint(n.ownCount)
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
// SLUB's sysfs ("144 N0=144"): every namespace's entries (and the per-CPU
// caches'). false where the kernel has no such file.
func (n *Namespaces) slabEntries() (uint64, bool) {
	return leadingUint(n.slab)
}

// leadingUint reads the number a held-open file starts with.
func leadingUint(f *kernelfs.OpenFile) (uint64, bool) {
	b, err := f.Read()
	if err != nil {
		return 0, false
	}
	end := 0
	for end < len(b) && b[end] >= '0' && b[end] <= '9' {
		end++
	}
	v, err := strconv.ParseUint(string(b[:end]), 10, 64)
	return v, err == nil
}
