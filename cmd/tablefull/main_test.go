package main

import (
	"os"
	"testing"
)

// TestMain lets tests run this test binary as the tablefull command
// (TABLEFULL_AS_MAIN=1), e.g. inside a network namespace.
func TestMain(m *testing.M) {
	if os.Getenv("TABLEFULL_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
