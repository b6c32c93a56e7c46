package console

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestConsoleInTmux drives the real console as a user would.
func TestConsoleInTmux(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := clitest.StartTmux(t, size[0], size[1], "", "--interval", "250ms")
			screen := s.WaitFor("tablefull", "LIVE", "conntrack", "CPU · disk", "TCP", "q quit")
			for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
				if len([]rune(line)) > size[0] {
					t.Errorf("line %d wider than %d: %q", i, size[0], line)
				}
			}
			s.Keys("?")
			s.WaitFor("next change", "faster")
			s.Keys("p")
			s.WaitFor("PAUSED")
			s.Keys("p")
			s.WaitFor("LIVE")
			s.Keys("q")
			s.WaitFor("EXIT=0", "TERMINAL-RESTORED")
		})
	}
}

// TestConsoleExitPaths: ctrl-c and SIGTERM also give the terminal back.
func TestConsoleExitPaths(t *testing.T) {
	t.Run("ctrl-c", func(t *testing.T) {
		s := clitest.StartTmux(t, 80, 24, "")
		s.WaitFor("LIVE")
		s.Keys("C-c")
		s.WaitFor("EXIT=", "TERMINAL-RESTORED")
	})
	t.Run("SIGTERM", func(t *testing.T) {
		marker := fmt.Sprintf("%dms", 300+os.Getpid()%500)
		s := clitest.StartTmux(t, 80, 24, "", "--interval", marker)
		s.WaitFor("LIVE")
		s.SignalConsole(syscall.SIGTERM)
		s.WaitFor("EXIT=", "TERMINAL-RESTORED")
	})
}

var colorSGR = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-8]|9[0-7])[;m]`)

// TestNoColor: NO_COLOR removes every colour; without it there is colour.
func TestNoColor(t *testing.T) {
	plain := clitest.StartTmux(t, 80, 24, "NO_COLOR=1")
	plain.WaitFor("LIVE")
	if m := colorSGR.FindString(plain.Capture(true)); m != "" {
		t.Errorf("NO_COLOR screen has colour %q", m)
	}
	colored := clitest.StartTmux(t, 80, 24, "TERM=xterm-256color")
	colored.WaitFor("LIVE")
	if !colorSGR.MatchString(colored.Capture(true)) {
		t.Errorf("without NO_COLOR the screen has no colour at all: the check above proves nothing")
	}
}
