//go:build !bench

package exporter

// fleetSizes are the fleets TestFleetAtAHundredThousand imports in the
// test suite: 1,000 and 10,000 hosts, ten times apart, so the console's
// cost is seen not to grow with the fleet. make bench imports 100,000
// (fleetscale_sizes_bench_test.go): some minutes of an engine's import.
var fleetSizes = []int{1000, 10000}
