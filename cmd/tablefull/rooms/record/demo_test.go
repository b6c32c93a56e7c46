package record

import (
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestDemoInTmux: a speaker runs it at 80×24; the captions and the pinned
// episode appear.
func TestDemoInTmux(t *testing.T) {
	s := clitest.StartTmux(t, 80, 24, "", "demo", "--speed", "4") // at 8 a loaded CI missed the fix's caption between two looks
	s.WaitFor("REPLAY", "climbing")
	s.WaitFor("Pinned at nf_conntrack_max")
	s.WaitFor("episode", "TABLE FULL")
	s.WaitFor("The fix: nf_conntrack_max raised")
	s.Keys("q")
	s.WaitFor("EXIT=0", "TERMINAL-RESTORED")
}
