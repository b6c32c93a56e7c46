package model

import (
	"fmt"

	"github.com/tablefull/tablefull/model/units"
)

// ruleHashChains: chaintoolong rose: a hash chain passed the kernel's limit,
// so more buckets (hashsize) are needed. Warning.
func ruleHashChains(in Inputs) (Verdict, bool) {
	own := in.Rates.CTTotal.Get(ChainTooLong)
	n := own
	for _, f := range in.ChainNS {
		n += f.ChainTooLong
	}
	if n == 0 {
		return Verdict{}, false
	}
	c := in.Sample.Conntrack
	others, read := OtherEntries(in.Sample)
	all := c.Count + others
	want := BucketsFor(max(c.Count, c.Peak) + others)
	whose := units.Int(c.Count) + " entries"
	switch {
	case others > 0:
		whose = fmt.Sprintf("%s entries of every namespace: this one's %s and the others' %s, one hash for all", units.Int(all), units.Int(c.Count), units.Int(others))
	case !read:
		whose += ", the other namespaces' not read"
	}
	where := ""
	switch f := in.ChainNS; {
	case len(f) == 1 && own == 0:
		where = " in " + f[0].NS.Label()
	case len(f) > 0:
		where = fmt.Sprintf(" (%s in %s", units.Int(f[0].ChainTooLong), f[0].NS.Label())
		if m := len(f) - 1; m > 0 {
			where += fmt.Sprintf(" and %s in %d more namespaces", units.Int(n-own-f[0].ChainTooLong), m)
		}
		if own > 0 {
			where += fmt.Sprintf(", %s in this one", units.Int(own))
		}
		where += ")"
	}
	return Verdict{Evidence: fmt.Sprintf(
		"%s chain-too-long events%s (each a packet dropped, counted in insert_failed) while the count is %s of max %s, average depth %.1f (2 × %s ÷ %s buckets): raise the hashsize to %s buckets (%s of kernel memory), not max",
		units.Int(n), where, units.Int(c.Count), units.Int(c.Max), ChainDepth(all, c.Buckets), whose, units.Int(c.Buckets), units.Int(want), units.Bytes(want*BucketBytes)), RulesOut: []string{KnobMax}}, true
}

// BucketBytes is one hash bucket's size (an hlist_nulls_head).
const BucketBytes = 8

// BucketsFor is the hashsize that keeps count entries at an average chain
// depth of 2 or less: the next power of two at or above count.
func BucketsFor(count uint64) uint64 {
	b := uint64(1)
	for b < count {
		b <<= 1
	}
	return b
}
