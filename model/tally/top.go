package tally

import "sort"

// TopN orders xs most first by weight, ties broken by before (nil: they
// keep their order), keeps the first n and returns them with the weight
// of the rest: the one rule of every list that shows its top few and
// sums the others (a census's top lists, owners, the probes' flows, the
// drop reasons, the CPUs that dropped most).
func TopN[T any](xs []T, n int, weight func(T) uint64, before func(a, b T) bool) ([]T, uint64) {
	sort.SliceStable(xs, func(i, j int) bool {
		if wi, wj := weight(xs[i]), weight(xs[j]); wi != wj {
			return wi > wj
		}
		return before != nil && before(xs[i], xs[j])
	})
	n = max(0, min(n, len(xs)))
	var rest uint64
	for _, x := range xs[n:] {
		rest += weight(x)
	}
	return xs[:n], rest
}

// countWeight is a Count's weight for TopN (a negative count weighs 0).
func CountWeight(c Count) uint64 { return uint64(max(0, c.N)) }

// byKey orders Counts of equal weight by their keys.
func ByKey(a, b Count) bool { return a.Key < b.Key }

// TopCounts is the n heaviest of cs, ties by key, never nil: an empty
// list is [] in JSON.
func TopCounts(cs []Count, n int) []Count {
	if cs == nil {
		cs = []Count{}
	}
	out, _ := TopN(cs, n, CountWeight, ByKey)
	return out
}

// Count is one key and how often it was seen.
type Count struct {
	Key string `json:"key"`
	N   int    `json:"n"`
}
