// Package incidents is a room of tablefull's end-to-end tests: the verdicts against the real kernel: each class, drop and cause, reproduced in namespaces. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package incidents
