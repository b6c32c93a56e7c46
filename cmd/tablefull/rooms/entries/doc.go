// Package entries is a room of tablefull's end-to-end tests: entries and
// census against the kernel's own listings (the filter, the labels, the
// deletions after a preview, the agent's census and the zones). It holds
// tests only; their kit is cmd/tablefull/internal/clitest.
package entries
