// Package house is a room of tablefull's end-to-end tests: the repository's own rules (sizes, layers, claims, notices, the manual). It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package house
