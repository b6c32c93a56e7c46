package console

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestConsoleSleepsAtRest: a console at rest wakes for its samples, not on
// a frame clock. bubbletea's renderer flushed ten times a second whether
// or not the screen changed (121 context switches in 3 s here); the
// painter writes when a frame changes (16–18).
func TestConsoleSleepsAtRest(t *testing.T) {
	marker := fmt.Sprintf("%dms", 1000+os.Getpid()%97) // about a second, and names this console
	s := clitest.StartTmux(t, 200, 50, "", "--interval", marker)
	s.WaitFor("LIVE")
	exe, _ := os.Executable()
	out, err := exec.Command("pgrep", "-f", "^"+regexp.QuoteMeta(exe)+" --interval "+marker).Output()
	if err != nil {
		t.Fatalf("pgrep: %v", err)
	}
	pid := strings.Fields(string(out))[0]
	time.Sleep(2 * time.Second) // past the first interval's polls for the peak
	// The quietest of up to three spans: the machine's other work (tests
	// beside this one) wakes the runtime's threads too, and a console
	// that woke on a clock would wake on it in every span.
	const span = 3 * time.Second
	least := -1
	for range 3 {
		before := kernelfstest.VoluntarySwitches(t, pid)
		time.Sleep(span)
		woke := kernelfstest.VoluntarySwitches(t, pid) - before
		t.Logf("%d voluntary context switches in %v", woke, span)
		if least < 0 || woke < least {
			least = woke
		}
		if float64(least)/span.Seconds() <= 12 {
			break
		}
	}
	if perSecond := float64(least) / span.Seconds(); perSecond > 12 {
		t.Errorf("the console at rest woke %.0f times a second (%d in %v at the quietest), want ≤ 12: a sample a second and its frame", perSecond, least, span)
	}
	s.Keys("q")
	s.WaitFor("EXIT=0", "TERMINAL-RESTORED")
}
