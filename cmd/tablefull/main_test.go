package main

import (
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestMain lets tests run this test binary as the tablefull command
// (clitest.AsMainEnv), e.g. inside a network namespace; the tests run
// under the machine's test gate.
func TestMain(m *testing.M) {
	clitest.Main(m, cli.Run)
}
