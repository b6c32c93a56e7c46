package tally

import (
	"testing"
)

// TestRingGrowsWithWhatItHolds: the ring's memory follows what it holds,
// never past its capacity, and it keeps the newest values across the
// grows and the wrap.
func TestRingGrowsWithWhatItHolds(t *testing.T) {
	const capacity = 3*ringChunk + 10
	r := NewRing[int](capacity)
	for i := range 3 * capacity {
		r.Push(i)
		room := 0
		for _, c := range r.chunks {
			room += cap(c)
		}
		if held := r.Len(); room > min(capacity, held+ringChunk-1) {
			t.Fatalf("holding %d of %d, the ring took room for %d", held, r.Cap(), room)
		}
		if r.At(0) != max(0, i-capacity+1) || r.At(r.Len()-1) != i {
			t.Fatalf("after %d pushes the ring holds %d..%d", i+1, r.At(0), r.At(r.Len()-1))
		}
	}
	if r.Len() != capacity || r.Cap() != capacity {
		t.Errorf("len %d cap %d, want %d of %d", r.Len(), r.Cap(), capacity, capacity)
	}
	r.Set(0, -1)
	if r.At(0) != -1 {
		t.Errorf("Set did not set the oldest value")
	}
}
