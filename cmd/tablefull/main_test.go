package main

import (
	"os"
	"testing"

	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestMain lets tests run this test binary as the tablefull command
// (TABLEFULL_AS_MAIN=1), e.g. inside a network namespace; the tests run
// under the machine's test gate (nstest.Main).
func TestMain(m *testing.M) {
	// A deployed copy of this binary is started as `BIN agent` with no
	// environment of ours.
	if os.Getenv("TABLEFULL_AS_MAIN") == "1" || (len(os.Args) == 2 && os.Args[1] == "agent") {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(nstest.Main(m))
}
