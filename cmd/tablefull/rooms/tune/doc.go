// Package tune is a room of tablefull's end-to-end tests: tune on the kernel and on files: its proposal, apply, persist, undo, the loop until free, the panel, drift, and a reboot. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package tune
