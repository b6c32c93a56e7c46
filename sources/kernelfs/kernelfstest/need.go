package kernelfstest

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// Need skips t unless it runs as root with every tool on PATH: the one
// requirement of the tests that use the real kernel, said one way, with
// why the test wants root (a namespace, another user, a mount). The
// first to run in a process writes back the knobs a killed run left
// changed (KnobJournal); if it cannot, every kernel test fails on it.
func Need(t testing.TB, why string, tools ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip(needWords("root (for " + why + ")"))
	}
	abandoned.Do(func() { abandonedErr = RestoreAbandonedKnobs(KnobJournal, "") })
	if abandonedErr != nil {
		t.Fatalf("the knobs a killed run changed are not back: %v", abandonedErr)
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

// abandoned restores the knobs of a killed run once per test process.
var (
	abandoned    sync.Once
	abandonedErr error
)
