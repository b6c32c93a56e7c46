// Package bench is a room of tablefull's end-to-end tests: the cost goals measured against peers (make bench; built with -tags bench). It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package bench
