// Package lab is a room of tablefull's end-to-end tests: the lab's incidents, headless and in the console, and the host restored. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package lab
