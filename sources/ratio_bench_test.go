//go:build bench

package sources

import (
	"fmt"
	"testing"
)

// TestRatioCollection prints the cost of one sample against the raw
// floor measured in the same run (make bench). Goal: ≤ 1.5×.
func TestRatioCollection(t *testing.T) {
	floor := testing.Benchmark(BenchmarkRawFloor)
	sample := testing.Benchmark(BenchmarkCollectorSample)
	ratio := float64(sample.NsPerOp()) / float64(floor.NsPerOp())
	verdict := "goal met"
	if ratio > 1.5 {
		verdict = "GOAL MISSED"
	}
	fmt.Printf("    collection: %d µs per sample, raw floor %d µs: %.2f× (goal ≤ 1.5×, %s)\n",
		sample.NsPerOp()/1000, floor.NsPerOp()/1000, ratio, verdict)
}
