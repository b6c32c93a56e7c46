// Package model holds tablefull's data and analysis: samples of cumulative
// kernel counters, the rates between two samples, bounded history with
// peak-hold, pinned-at-cap episodes, the conntrack arithmetic from the
// incident write-up, and the verdict rules.
//
// Everything here is a pure function of its inputs and imports only the
// standard library, so live collection, remote agents, recordings and the
// demo all produce and analyse the same values.
package model
