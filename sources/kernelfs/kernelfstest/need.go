package kernelfstest

import (
	"os"
	"os/exec"
	"testing"
)

// Need skips t unless it runs as root with every tool on PATH: the one
// requirement of the tests that use the real kernel, said one way, with
// why the test wants root (a namespace, another user, a mount).
func Need(t testing.TB, why string, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip(needWords("root (for " + why + ")"))
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(needWords(tool))
		}
	}
}

// needWords is the skip message: what is missing and how the whole suite
// gets it.
func needWords(what string) string {
	return "needs " + what + " (the kernel tests run as root: sudo make test; .ci/run installs every tool)"
}
