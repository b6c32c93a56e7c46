package model

import (
	"reflect"
	"testing"
)

func TestPeakHold(t *testing.T) {
	var p PeakHold
	if got := p.Take(7); got != 7 {
		t.Errorf("Take with nothing observed = %d, want the fallback 7", got)
	}
	for _, v := range []uint64{10, 4096, 3000, 12} {
		p.Observe(v)
	}
	if got := p.Take(12); got != 4096 {
		t.Errorf("Take after a burst = %d, want 4096", got)
	}
	p.Observe(5)
	if got := p.Take(9); got != 9 {
		t.Errorf("Take below the closing value = %d, want 9 (never below the sample)", got)
	}
}

func TestRingKeepsNewest(t *testing.T) {
	r := NewRing[int](3)
	if _, ok := r.Last(); ok {
		t.Fatal("empty ring has a last value")
	}
	for i := 1; i <= 5; i++ {
		r.Push(i)
	}
	var got []int
	for i := range r.Len() {
		got = append(got, r.At(i))
	}
	if !reflect.DeepEqual(got, []int{3, 4, 5}) {
		t.Errorf("ring holds %v, want [3 4 5]", got)
	}
	if last, _ := r.Last(); last != 5 {
		t.Errorf("Last = %d, want 5", last)
	}
}

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

func TestFastSampling(t *testing.T) {
	table := func(count, peak, max uint64, drops uint64) Sample {
		return Sample{Conntrack: Conntrack{Status: TableTracked, Count: count, Peak: peak, Max: max},
			CTStats: CTStats{Reported: AllCounters, PerCPU: []CPUCounters{{Values: CountersOf(map[Counter]uint64{Drop: drops})}}}}
	}
	for _, tc := range []struct {
		name      string
		prev, cur Sample
		want      bool
	}{
		{"far and steady", table(500, 500, 4096, 0), table(520, 530, 4096, 0), false},
		{"within reach", table(1900, 1900, 4096, 0), table(2100, 2100, 4096, 0), true},
		{"a burst's peak within reach", table(500, 500, 4096, 0), table(600, 2500, 4096, 0), true},
		{"rising fast enough to reach it", table(500, 500, 4096, 0), table(1900, 1900, 4096, 0), true},
		{"rising, but not that fast", table(500, 500, 4096, 0), table(800, 800, 4096, 0), false},
		{"drops in the interval", table(100, 100, 4096, 5), table(100, 100, 4096, 9), true},
		{"untracked", Sample{}, Sample{Conntrack: Conntrack{Status: TableUntracked, Max: 4096}}, false},
		{"no module", Sample{}, Sample{Conntrack: Conntrack{Status: TableNoModule}}, false},
	} {
		if got := FastSampling(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
