package arith

import (
	"math"
	"testing"
)

func TestCeilingWriteUpNumbers(t *testing.T) {
	tests := []struct {
		name      string
		max, hold uint64
		want      float64
	}{
		{"write-up default: 4,096 at 120 s", 4096, 120, 34},
		{"shorter hold: 4,096 at 30 s", 4096, 30, 137},
		{"raised: 65,536 at 30 s", 65536, 30, 2185},
		{"unknown hold", 4096, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := math.Round(Ceiling(tt.max, tt.hold)); got != tt.want {
				t.Errorf("Ceiling(%d, %d) = %v, want %v", tt.max, tt.hold, got, tt.want)
			}
		})
	}
}

func TestWorkingSetAndDepth(t *testing.T) {
	if got := WorkingSet(570, 30, 0); got != 17100 {
		t.Errorf("WorkingSet(570/s, 30 s) = %d, want 17100", got)
	}
	if got := WorkingSet(10, 120, 25); got != 1225 {
		t.Errorf("WorkingSet(10/s, 120 s, 25 open) = %d, want 1225", got)
	}
	if got := ChainDepth(17000, 8192); math.Abs(got-4.150) > 0.001 { // each entry in two chains
		t.Errorf("ChainDepth(17000, 8192) = %v, want 4.150", got)
	}
	if got := ChainDepth(5, 0); got != 0 {
		t.Errorf("ChainDepth with no buckets = %v, want 0", got)
	}
}
