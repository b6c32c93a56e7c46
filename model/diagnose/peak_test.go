package diagnose

import (
	"reflect"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
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
	r := tally.NewRing[int](3)
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

func TestFastSampling(t *testing.T) {
	table := func(count, peak, max uint64, drops uint64) model.Sample {
		return model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: count, Peak: peak, Max: max},
			CTStats: model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{{Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}}}
	}
	for _, tc := range []struct {
		name      string
		prev, cur model.Sample
		want      bool
	}{
		{"far and steady", table(500, 500, 4096, 0), table(520, 530, 4096, 0), false},
		{"within reach", table(1900, 1900, 4096, 0), table(2100, 2100, 4096, 0), true},
		{"a burst's peak within reach", table(500, 500, 4096, 0), table(600, 2500, 4096, 0), true},
		{"rising fast enough to reach it", table(500, 500, 4096, 0), table(1900, 1900, 4096, 0), true},
		{"rising, but not that fast", table(500, 500, 4096, 0), table(800, 800, 4096, 0), false},
		{"drops in the interval", table(100, 100, 4096, 5), table(100, 100, 4096, 9), true},
		{"untracked", model.Sample{}, model.Sample{Conntrack: model.Conntrack{Status: model.TableUntracked, Max: 4096}}, false},
		{"no module", model.Sample{}, model.Sample{Conntrack: model.Conntrack{Status: model.TableNoModule}}, false},
	} {
		if got := FastSampling(tc.prev, tc.cur); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
