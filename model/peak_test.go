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
