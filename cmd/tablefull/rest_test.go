package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestConsoleSleepsAtRest: a console at rest wakes for its samples, not on
// a frame clock. bubbletea's renderer flushed ten times a second whether
// or not the screen changed (121 context switches in 3 s here); the
// painter writes when a frame changes (16–18).
func TestConsoleSleepsAtRest(t *testing.T) {
	marker := fmt.Sprintf("%dms", 1000+os.Getpid()%97) // about a second, and names this console
	s := startTmux(t, 200, 50, "", "--interval", marker)
	s.waitFor("LIVE")
	exe, _ := os.Executable()
	out, err := exec.Command("pgrep", "-f", "^"+regexp.QuoteMeta(exe)+" --interval "+marker).Output()
	if err != nil {
		t.Fatalf("pgrep: %v", err)
	}
	pid := strings.Fields(string(out))[0]
	time.Sleep(2 * time.Second) // past the first interval's polls for the peak
	const span = 3 * time.Second
	before := kernelfstest.VoluntarySwitches(t, pid)
	time.Sleep(span)
	woke := kernelfstest.VoluntarySwitches(t, pid) - before
	t.Logf("%d voluntary context switches in %v", woke, span)
	if perSecond := float64(woke) / span.Seconds(); perSecond > 12 {
		t.Errorf("the console at rest woke %.0f times a second (%d in %v), want ≤ 12: a sample a second and its frame", perSecond, woke, span)
	}
	s.keys("q")
	s.waitFor("EXIT=0", "TERMINAL-RESTORED")
}
