package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestConsoleHangupStopsChildren: SIGHUP (the terminal closed) and
// SIGTERM end the console as q does — exit 0, the terminal restored —
// and a --via command that ignores stdin, SIGHUP and SIGTERM is gone
// within 2 s.
func TestConsoleHangupStopsChildren(t *testing.T) {
	if _, err := exec.LookPath("pgrep"); err != nil {
		t.Skip("needs pgrep")
	}
	exe, _ := os.Executable()
	for i, sig := range []string{"HUP", "TERM"} {
		t.Run(sig, func(t *testing.T) {
			marker := fmt.Sprint(3000 + os.Getpid()%1000*2 + i)
			script := filepath.Join(t.TempDir(), "stubborn.sh")
			body := "#!/bin/sh\ntrap '' HUP TERM INT\nexec sleep " + marker + " </dev/null\n"
			if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
				t.Fatal(err)
			}
			alive := func() bool { return exec.Command("pgrep", "-f", "^sleep "+marker+"$").Run() == nil }
			t.Cleanup(func() { exec.Command("pkill", "-KILL", "-f", "^sleep "+marker+"$").Run() })
			s := startTmux(t, 80, 24, "", "--via", script)
			s.waitFor("q quit")
			for end := time.Now().Add(5 * time.Second); !alive(); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("the --via command never started:\n%s", s.capture(false))
				}
			}
			// Anchored: the shell and tmux around it carry the same words.
			if out, err := exec.Command("pkill", "-"+sig, "-f", "^"+regexp.QuoteMeta(exe)+" --via ").CombinedOutput(); err != nil {
				t.Fatalf("pkill -%s: %v %s", sig, err, out)
			}
			signalled := time.Now()
			for alive() && time.Since(signalled) < 3*time.Second {
				time.Sleep(50 * time.Millisecond)
			}
			if gone := time.Since(signalled); alive() || gone > 2*time.Second {
				t.Errorf("the --via command outlived SIG%s by %s", sig, gone.Round(time.Millisecond))
			}
			screen := s.waitFor("EXIT=", "TERMINAL-RESTORED")
			if !strings.Contains(screen, "EXIT=0") {
				t.Errorf("SIG%s: the console did not exit 0:\n%s", sig, screen)
			}
		})
	}
}
