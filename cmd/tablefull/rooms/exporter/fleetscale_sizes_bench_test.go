//go:build bench

package exporter

// fleetSizes are the fleets TestFleetAtAHundredThousand imports under
// make bench: 1,000 and 100,000 hosts.
var fleetSizes = []int{1000, 100000}
