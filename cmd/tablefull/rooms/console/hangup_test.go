package console

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestConsoleHangupStopsChildren: SIGHUP (the terminal closed) and
// SIGTERM end the console as q does — exit 0, the terminal restored —
// and a --via command that ignores stdin, SIGHUP and SIGTERM is gone
// within 2 s.
func TestConsoleHangupStopsChildren(t *testing.T) {
	for i, sig := range []string{"HUP", "TERM"} {
		t.Run(sig, func(t *testing.T) {
			marker := fmt.Sprint(3000 + os.Getpid()%1000*2 + i)
			script := filepath.Join(t.TempDir(), "stubborn.sh")
			body := "#!/bin/sh\ntrap '' HUP TERM INT\nexec sleep " + marker + " </dev/null\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			s := clitest.StartTmux(t, 80, 24, "", "--via", script)
			pane := s.PanePID()
			var started []int // the stubborn command, found under the console in the pane, then followed by pid
			isSleep := func(argv []string) bool { return len(argv) == 2 && argv[0] == "sleep" && argv[1] == marker }
			living := func() []int { // reparented once the console is gone: no longer under the pane
				var out []int
				for _, p := range started {
					if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && isSleep(strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")) {
						out = append(out, p)
					}
				}
				return out
			}
			alive := func() bool {
				if started == nil {
					started = clitest.ProcsUnder(pane, isSleep)
				}
				return len(living()) > 0
			}
			t.Cleanup(func() { clitest.SignalAll(living(), syscall.SIGKILL) })
			s.WaitFor("q quit")
			for end := time.Now().Add(5 * time.Second); !alive(); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("the --via command never started:\n%s", s.Capture(false))
				}
			}
			s.SignalConsole(map[string]syscall.Signal{"HUP": syscall.SIGHUP, "TERM": syscall.SIGTERM}[sig])
			signalled := time.Now()
			for alive() && time.Since(signalled) < 3*time.Second {
				time.Sleep(50 * time.Millisecond)
			}
			if gone := time.Since(signalled); alive() || gone > 2*time.Second {
				t.Errorf("the --via command outlived SIG%s by %s", sig, gone.Round(time.Millisecond))
			}
			screen := s.WaitFor("EXIT=", "TERMINAL-RESTORED")
			if !strings.Contains(screen, "EXIT=0") {
				t.Errorf("SIG%s: the console did not exit 0:\n%s", sig, screen)
			}
		})
	}
}
