package diagnose

import (
	"testing"
	"time"
)

func TestEpisodes(t *testing.T) {
	t0 := time.Date(2026, 7, 26, 20, 53, 45, 0, time.UTC)
	type step struct {
		pinned bool
		drops  uint64
	}
	tests := []struct {
		name      string
		steps     []step
		wantN     int
		wantOpen  bool
		wantDur   time.Duration
		wantDrops uint64
	}{
		{"never pinned", []step{{false, 0}, {false, 0}}, 0, false, 0, 0},
		{"enter", []step{{false, 0}, {true, 5}}, 1, true, time.Second, 5},
		{"stay: eleven pinned samples", repeat(step{true, 540}, 11), 1, true, 11 * time.Second, 5940},
		{"leave after three below", append(repeat(step{true, 1}, 4), repeat(step{false, 0}, 3)...), 1, false, 4 * time.Second, 4},
		{"still open after two below", append(repeat(step{true, 1}, 4), repeat(step{false, 0}, 2)...), 1, true, 4 * time.Second, 4},
		{"flapping around the cap is one episode",
			[]step{{true, 1}, {false, 0}, {true, 1}, {false, 0}, {false, 0}, {true, 1}}, 1, true, 6 * time.Second, 3},
		{"two episodes", append(append(repeat(step{true, 2}, 2), repeat(step{false, 0}, 3)...), step{true, 7}), 2, true, time.Second, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEpisodes(10)
			for i, s := range tt.steps {
				e.Observe(t0.Add(time.Duration(i)*time.Second), time.Second, s.pinned, s.drops, 4096)
			}
			list := e.List()
			if len(list) != tt.wantN {
				t.Fatalf("got %d episodes, want %d: %+v", len(list), tt.wantN, list)
			}
			if tt.wantN == 0 {
				return
			}
			last := list[len(list)-1]
			if last.Open != tt.wantOpen || last.Duration() != tt.wantDur || last.Drops != tt.wantDrops {
				t.Errorf("got open=%v dur=%v drops=%d, want open=%v dur=%v drops=%d",
					last.Open, last.Duration(), last.Drops, tt.wantOpen, tt.wantDur, tt.wantDrops)
			}
			if _, ok := e.Current(); ok != tt.wantOpen {
				t.Errorf("Current ok = %v, want %v", ok, tt.wantOpen)
			}
		})
	}
}

func TestEpisodesBounded(t *testing.T) {
	e := NewEpisodes(2)
	t0 := time.Unix(0, 0)
	for i := range 20 {
		pinned := i%5 == 0
		e.Observe(t0.Add(time.Duration(i)*time.Second), time.Second, pinned, 0, 10)
	}
	if n := len(e.List()); n != 2 {
		t.Errorf("kept %d episodes, want 2", n)
	}
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}
