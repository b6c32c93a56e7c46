// Package agent is a room of tablefull's end-to-end tests: the agent in a namespace and over SSH, its stream, its deploy and what it refuses. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package agent
