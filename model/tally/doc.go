// Package tally is bounded counting: a key and its count, the top few of
// a list with the weight of the rest, a heavy-hitter sketch and a ring
// that grows with what it holds. Nothing here grows with its input.
package tally
