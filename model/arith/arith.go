package arith

// Ceiling is the sustainable rate of new connections, per second, that a
// table of max entries can take when each closed connection keeps its entry
// for hold seconds (the write-up: 4,096 ÷ 120 s = 34/s). It is 0 when hold
// is unknown.
func Ceiling(max, hold uint64) float64 {
	if hold == 0 {
		return 0
	}
	return float64(max) / float64(hold)
}

// ChainsWatchedDepth is the average depth from which every namespace's
// chain-too-long counter is read: well under the shortest chain a kernel
// refuses an insert at, since chains are uneven around their average.
const ChainsWatchedDepth = 16

// ChainDepth is the average hash chain length: 2 × count ÷ buckets, since
// each entry is hashed twice, its original and its reply direction
// (__nf_conntrack_hash_insert).
func ChainDepth(count, buckets uint64) float64 {
	if buckets == 0 {
		return 0
	}
	return 2 * float64(count) / float64(buckets)
}

// WorkingSet is the number of entries a steady rate of new connections
// needs: each one is held for hold seconds after it closes, on top of the
// connections that are still open (the write-up: 570/s × 30 s ≈ 17,000).
func WorkingSet(ratePS float64, hold, established uint64) uint64 {
	return uint64(ratePS*float64(hold)+0.5) + established
}

// Percent is part as a percentage of whole, 0 when whole is 0.
func Percent(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}
