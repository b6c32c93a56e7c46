package clitest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tmux runs this test binary as tablefull in a detached tmux
// session of w×h on a private server. The shell around it records the
// exit code and whether the terminal settings came back unchanged. CI,
// NO_COLOR and CLICOLOR from the test's environment are unset in the
// pane (termenv treats CI as "not a terminal"): a pane is what a user at a
// terminal has, and a test that wants one of them sets it in env.
type Tmux struct {
	t      *testing.T
	socket string
}

// PanePID is the pid of the process the session's pane runs (the shell
// around the console): what the test started lives under it.
func (s *Tmux) PanePID() int {
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

// SignalConsole sends sig to the console the session runs (this test's
// binary, below the pane's shell).
func (s *Tmux) SignalConsole(sig syscall.Signal) {
	exe, _ := os.Executable()
	pids := ProcsUnder(s.PanePID(), func(argv []string) bool { return len(argv) > 0 && argv[0] == exe })
	if len(pids) == 0 {
		s.t.Fatalf("no console under the pane:\n%s", s.Capture(false))
	}
	SignalAll(pids, sig)
}

// StartTmux runs this test binary as tablefull with args, after the
// environment assignments env, in a tmux session of w×h (Tmux).
func StartTmux(t *testing.T, w, h int, env string, args ...string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := &Tmux{t: t, socket: fmt.Sprintf("tablefull-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := fmt.Sprintf(`stty -g > %[1]s/before; env -u CI -u NO_COLOR -u CLICOLOR TABLEFULL_AS_MAIN=1 %[2]s %[3]s %[4]s; echo "EXIT=$?"; stty -g > %[1]s/after; cmp -s %[1]s/before %[1]s/after && echo TERMINAL-RESTORED; sleep 60`,
		t.TempDir(), env, exe, strings.Join(args, " "))
	cmd := exec.Command("tmux", "-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// Capture is the screen, with its escapes (colours) when escapes.
func (s *Tmux) Capture(escapes bool) string {
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

// Keys sends keys to the pane, as tmux send-keys names them.
func (s *Tmux) Keys(keys ...string) {
	if out, err := exec.Command("tmux", append([]string{"-L", s.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("send-keys %v: %v: %s", keys, err, out)
	}
}

// WaitFor polls the screen until every want is on it.
func (s *Tmux) WaitFor(want ...string) string {
	s.t.Helper()
	return s.WaitWithin(10*time.Second, want...)
}

// WaitWithin waits up to d for the screen to show every one of want, and
// returns it; the test fails with the screen when it does not.
func (s *Tmux) WaitWithin(d time.Duration, want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		screen := s.Capture(false)
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

// StartTmuxArgv runs argv as the pane's only process, with the same exit
// bookkeeping as startTmux.
func StartTmuxArgv(t *testing.T, w, h int, argv []string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux")
	}
	s := &Tmux{t: t, socket: fmt.Sprintf("tablefull-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := strings.Join(argv, " ") + `; echo "EXIT=$?"; sleep 60`
	cmd := exec.Command("tmux", "-L", s.socket, "-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

// WaitForAny polls the screen until one of want is on it and returns it.
func (s *Tmux) WaitForAny(want ...string) string {
	s.t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		screen := s.Capture(false)
		for _, w := range want {
			if strings.Contains(screen, w) {
				return w
			}
		}
	}
	s.t.Fatalf("screen never showed any of %q:\n%s", want, s.Capture(false))
	return ""
}
