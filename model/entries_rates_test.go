package model

import (
	"testing"
	"time"
)

// TestEvictedNotKnown: rates from events whose kernel cannot tell an
// eviction say the evictions are not known, not 0.
func TestEvictedNotKnown(t *testing.T) {
	at := func(i int, unknown bool) Sample {
		s := Sample{Time: time.Unix(int64(100+i), 0), Interval: time.Second}
		s.Entries = Entries{Source: EntriesEvents, Epoch: 1, EvictedUnknown: unknown}
		s.Entries.New[ProtoTCP] = uint64(10 * i)
		s.Entries.Ended[ClassTCPDone] = uint64(10 * i)
		return s
	}
	for _, unknown := range []bool{true, false} {
		r := entryRates(at(1, unknown), at(2, unknown), 1)
		if _, ok := r.Evicted(); ok == unknown {
			t.Errorf("events on a kernel that tells evictions %v: Evicted known %v", !unknown, ok)
		}
	}
}
