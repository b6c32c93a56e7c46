package main

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxSession runs this test binary as tablefull in a detached tmux
// session of w×h on a private server. The shell around it records the
// exit code and whether the terminal settings came back unchanged. CI,
// NO_COLOR and CLICOLOR from the test's environment are unset in the
// pane (termenv treats CI as "not a terminal"): a pane is what a user at a
// terminal has, and a test that wants one of them sets it in env.
type tmuxSession struct {
	t      *testing.T
	socket string
}

// panePID is the pid of the process the session's pane runs (the shell
// around the console): what the test started lives under it.
func (s *tmuxSession) panePID() int {
	out, err := exec.Command("tmux", "-L", s.socket, "display-message", "-p", "#{pane_pid}").Output()
	if err != nil {
		s.t.Fatalf("tmux pane pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		s.t.Fatalf("tmux pane pid %q: %v", out, err)
	}
	return pid
}

// signalConsole sends sig to the console the session runs (this test's
// binary, below the pane's shell).
func (s *tmuxSession) signalConsole(sig syscall.Signal) {
	exe, _ := os.Executable()
	pids := procsUnder(s.panePID(), func(argv []string) bool { return len(argv) > 0 && argv[0] == exe })
	if len(pids) == 0 {
		s.t.Fatalf("no console under the pane:\n%s", s.capture(false))
	}
	signalAll(pids, sig)
}

func startTmux(t *testing.T, w, h int, env string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("tablefull-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := fmt.Sprintf(`stty -g > %[1]s/before; env -u CI -u NO_COLOR -u CLICOLOR TABLEFULL_AS_MAIN=1 %[2]s %[3]s %[4]s; echo "EXIT=$?"; stty -g > %[1]s/after; cmp -s %[1]s/before %[1]s/after && echo TERMINAL-RESTORED; sleep 60`,
		t.TempDir(), env, exe, strings.Join(args, " "))
	cmd := exec.Command("tmux", "-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxSession) capture(escapes bool) string {
	args := []string{"-L", s.socket, "capture-pane", "-p"}
	if escapes {
		args = append(args, "-e")
	}
	out, err := exec.Command("tmux", args...).Output()
	if err != nil {
		s.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

func (s *tmuxSession) keys(keys ...string) {
	if out, err := exec.Command("tmux", append([]string{"-L", s.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys %v: %v: %s", keys, err, out)
	}
}

// waitFor polls the screen until every want is on it.
func (s *tmuxSession) waitFor(want ...string) string {
	s.t.Helper()
	return s.waitWithin(10*time.Second, want...)
}

// waitWithin waits up to d for the screen to show every one of want, and
// returns it; the test fails with the screen when it does not.
func (s *tmuxSession) waitWithin(d time.Duration, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.capture(false)
		missing := ""
		for _, w := range want {
			if !strings.Contains(screen, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", missing, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestConsoleInTmux drives the real console as a user would.
func TestConsoleInTmux(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startTmux(t, size[0], size[1], "", "--interval", "250ms")
			screen := s.waitFor("tablefull", "LIVE", "conntrack", "CPU · disk", "TCP", "q quit")
			for i, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
				if len([]rune(line)) > size[0] {
					t.Errorf("line %d wider than %d: %q", i, size[0], line)
				}
			}
			s.keys("?")
			s.waitFor("next change", "faster")
			s.keys("p")
			s.waitFor("PAUSED")
			s.keys("p")
			s.waitFor("LIVE")
			s.keys("q")
			s.waitFor("EXIT=0", "TERMINAL-RESTORED")
		})
	}
}

// TestConsoleExitPaths: ctrl-c and SIGTERM also give the terminal back.
func TestConsoleExitPaths(t *testing.T) {
	t.Run("ctrl-c", func(t *testing.T) {
		s := startTmux(t, 80, 24, "")
		s.waitFor("LIVE")
		s.keys("C-c")
		s.waitFor("EXIT=", "TERMINAL-RESTORED")
	})
	t.Run("SIGTERM", func(t *testing.T) {
		marker := fmt.Sprintf("%dms", 300+os.Getpid()%500)
		s := startTmux(t, 80, 24, "", "--interval", marker)
		s.waitFor("LIVE")
		s.signalConsole(syscall.SIGTERM)
		s.waitFor("EXIT=", "TERMINAL-RESTORED")
	})
}

var colorSGR = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-8]|9[0-7])[;m]`)

// TestNoColor: NO_COLOR removes every colour; without it there is colour.
func TestNoColor(t *testing.T) {
	plain := startTmux(t, 80, 24, "NO_COLOR=1")
	plain.waitFor("LIVE")
	if m := colorSGR.FindString(plain.capture(true)); m != "" {
		t.Errorf("NO_COLOR screen has colour %q", m)
	}
	colored := startTmux(t, 80, 24, "TERM=xterm-256color")
	colored.waitFor("LIVE")
	if !colorSGR.MatchString(colored.capture(true)) {
		t.Errorf("without NO_COLOR the screen has no colour at all: the check above proves nothing")
	}
}

// startTmuxArgv runs argv as the pane's only process, with the same exit
// bookkeeping as startTmux.
func startTmuxArgv(t *testing.T, w, h int, argv []string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("tablefull-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := strings.Join(argv, " ") + `; echo "EXIT=$?"; sleep 60`
	cmd := exec.Command("tmux", "-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}
