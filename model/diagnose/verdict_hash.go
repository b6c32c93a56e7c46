package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// ruleHashChains: chaintoolong rose: a hash chain passed the kernel's limit,
// so more buckets (hashsize) are needed. Warning.
func ruleHashChains(in Inputs) (verdict.Verdict, bool) {
	own := in.Rates.CTTotal.Get(model.ChainTooLong)
	n := own
	for _, f := range in.ChainNS {
		n += f.ChainTooLong
	}
	if n == 0 {
		return verdict.Verdict{}, false
	}
	c := in.Sample.Conntrack
	others, read := model.OtherEntries(in.Sample)
	all := c.Count + others
	want, doubled := ChainBuckets(max(c.Count, c.Peak)+others, c.Buckets)
	chains := verdict.N("chain-too-long", n, verdict.Packets).From("conntrack -S chaintoolong, summed over CPUs and namespaces", "every namespace, the interval of "+units.Dur(in.Sample.Interval))
	events, where := []verdict.Fact{chains}, "hash-chains"
	switch f := in.ChainNS; {
	case len(f) == 1 && own == 0:
		where += ".netns"
		events = append(events, verdict.W("netns", f[0].NS.Label()))
	case len(f) > 0:
		where += ".split"
		events = append(events, verdict.W("netns", f[0].NS.Label()),
			verdict.N("in netns", f[0].ChainTooLong, verdict.Packets).From("its conntrack -S chaintoolong", f[0].NS.Label()+", since the previous sample"))
		if m := len(f) - 1; m > 0 {
			where += ".more"
			events = append(events, verdict.N("in more", n-own-f[0].ChainTooLong, verdict.Packets).From("their conntrack -S chaintoolong", "the other namespaces, since the previous sample"),
				verdict.N("more", m, verdict.Number).From("the namespaces read", "every namespace"))
		}
		if own > 0 {
			where += ".own"
			events = append(events, factCounter(in, model.ChainTooLong))
		}
	}
	facts, whose := []verdict.Fact{model.FactCount(c), model.FactMax(c)}, "hash-chains.count"
	switch {
	case others > 0:
		whose += ".all"
		facts = append(facts, verdict.N("all", all, verdict.Entries).From("every namespace's nf_conntrack_count", "every namespace"),
			verdict.N("others", others, verdict.Entries).From("the other namespaces' nf_conntrack_count", "every other namespace"))
	case !read:
		whose += ".unread"
	}
	facts = append(facts, model.FactBuckets(c), verdict.N("depth", arith.ChainDepth(all, c.Buckets), verdict.Ratio).From("2 × the entries ÷ the buckets", "every namespace"))
	lead := []verdict.Clause{say(verdict.Lead, where, events...), say(verdict.Lead, whose, facts...).After(" ")}
	memory := verdict.N("memory", want*BucketBytes, verdict.Bytes).From("the buckets × 8 bytes", "the kernel")
	fix := say(verdict.Fix, "hash-chains.fix",
		verdict.N("want", want, verdict.Number).From("the next power of two at or above every namespace's entries", "every namespace"), memory).After(": ")
	if doubled { // the buckets already outnumber what is counted: the chains are of entries not counted, or of flows that hash alike
		fix = say(verdict.Fix, "hash-chains.double",
			verdict.N("want", want, verdict.Number).From("twice nf_conntrack_buckets", model.ThisTable), memory).After(": ")
	}
	v := says(append(lead, fix)...)
	v.RulesOut = []string{knob.Max}
	return v, true
}

// BucketBytes is one hash bucket's size (an hlist_nulls_head).
const BucketBytes = 8

// ChainBuckets is the hashsize HASH CHAINS asks for with entries in the
// one hash of buckets: the next power of two at or above them, or, where
// that is not more than there are (the chains are of entries not read,
// or of flows that hash alike), twice the buckets; doubled says which.
// Never fewer buckets than there are.
func ChainBuckets(entries, buckets uint64) (want uint64, doubled bool) {
	if want = BucketsFor(entries); want > buckets {
		return want, false
	}
	return 2 * max(buckets, 1), true
}

// BucketsFor is the hashsize that keeps count entries at an average chain
// depth of 2 or less: the next power of two at or above count.
func BucketsFor(count uint64) uint64 {
	b := uint64(1)
	for b < count {
		b <<= 1
	}
	return b
}
