//go:build !bench

package exporter

import "time"

// fleetSizes are the fleets TestFleetAtAHundredThousand imports in the
// test suite: 1,000 and 10,000 hosts, ten times apart, so the console's
// cost is seen not to grow with the fleet. make bench imports 100,000
// (fleetscale_sizes_bench_test.go): some minutes of an engine's import.
var fleetSizes = []int{1000, 10000}

// recordedSlack is what a refresh from the recordings may take at the
// larger fleet beyond 1.2× its time at the smaller. In the suite, 100
// ms: VictoriaMetrics' lookups of a page whose tied quiet hosts change
// at each refresh took 45–53 ms at 10,000 hosts where they took 18–25
// ms at 1,000 (docs/fleet.md); the raw queries' refresh is a third of a
// second there, and it is what this would catch.
const recordedSlack = 100 * time.Millisecond
