// Package kernelfstest holds what tests read of the kernel about a
// process itself, for tests in more than one package.
package kernelfstest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// VoluntarySwitches sums the voluntary context switches of every thread
// of process pid ("self" for the test's own): each is a wake-up after a
// sleep. It skips the test when the threads cannot be listed.
func VoluntarySwitches(t testing.TB, pid string) int {
	t.Helper()
	tasks, err := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		t.Skipf("no threads listed for %s: %v", pid, err)
	}
	sum := 0
	for _, status := range tasks {
		b, err := os.ReadFile(status)
		if err != nil {
			continue // a thread that ended
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				sum += n
			}
		}
	}
	return sum
}
