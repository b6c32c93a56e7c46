// Package record is a room of tablefull's end-to-end tests: record, replay, demo, report and compare, and the pictures drawn from the program's frames. It
// holds tests only; their kit is cmd/tablefull/internal/clitest.
package record
