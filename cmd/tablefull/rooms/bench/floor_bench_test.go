//go:build bench

package bench

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// startupFloor says the peak RSS of `bin version`: a tablefull process that
// only initializes and exits. It is the part of every command's peak that
// no reader can lower: the binary's pages its packages' initialization
// touches (the kernel maps the file 64 kB around each page touched).
// GNU time reads it from the child's rusage: a child of this test forks
// from this process, and its rusage would count our own peak.
func startupFloor(t *testing.T, bin string) string {
	t.Helper()
	gnuTime, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		return "the binary's floor not measured (no /usr/bin/time: apt-get install time)"
	}
	out, err := exec.Command(gnuTime, "-f", "%M", bin, "version").CombinedOutput()
	lines := strings.Fields(string(out))
	if err != nil || len(lines) == 0 {
		t.Fatalf("%s version: %v %s", bin, err, out)
	}
	kb, err := strconv.ParseFloat(lines[len(lines)-1], 64)
	if err != nil {
		t.Fatalf("GNU time's %%M: %q", out)
	}
	return fmt.Sprintf("the binary's floor, `tablefull version`, %.1f MB", kb/1024)
}
