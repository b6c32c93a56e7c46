//go:build !bench

package exporter

// fleetSizes are the fleets TestFleetAtAHundredThousand imports in the
// test suite: 1,000 and 10,000 hosts, ten times apart, so the console's
// cost is seen not to grow with the fleet. make bench imports 100,000
// (fleetscale_sizes_bench_test.go): some minutes of an engine's import.
var fleetSizes = []int{1000, 10000}

// benchSizes is false in the suite: the fleet test runs beside the
// kernel tests, whose load makes a refresh of some 20 ms take 50–200
// ms, and a ratio of two such times says more of the load than of the
// fleet. Here a refresh from the recordings at the larger fleet is held
// to a quarter of the raw queries' there (the fleet-wide work is the
// rules'); make bench, alone on the machine, holds it to 1.2× the
// smaller fleet's.
const benchSizes = false
