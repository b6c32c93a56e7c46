//go:build bench

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// paneProcess runs argv alone in a detached w×h tmux pane and returns its
// pid; the session is killed when the test ends.
func paneProcess(t *testing.T, w, h int, env []string, argv ...string) (pid int, socket string) {
	t.Helper()
	socket = fmt.Sprintf("tablefull-bench-%d-%d", os.Getpid(), time.Now().UnixNano())
	args := []string{"-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "env"}
	args = append(append(args, env...), argv...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })
	out, err := exec.Command("tmux", "-L", socket, "display", "-p", "#{pane_pid}").Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	return pid, socket
}

// cpuTicks is utime+stime of pid, in clock ticks.
func cpuTicks(t *testing.T, pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return u + s
}

func statusKB(t *testing.T, pid int, field string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, field+":") {
			v, _ := strconv.Atoi(strings.Fields(l)[1])
			return v
		}
	}
	return 0
}

// cpuPercent measures pid's CPU over d, after a warm-up.
func cpuPercent(t *testing.T, pid int, d time.Duration) float64 {
	time.Sleep(2 * time.Second)
	a := cpuTicks(t, pid)
	time.Sleep(d)
	return 100 * (cpuTicks(t, pid) - a) / 100 / d.Seconds() // USER_HZ is 100
}

func consoleArgv(t *testing.T) (argv, env []string) {
	if bin, err := filepath.Abs("../../tablefull"); err == nil {
		if _, err := os.Stat(bin); err == nil {
			return []string{bin}, nil
		}
	}
	exe, _ := os.Executable()
	return []string{exe}, []string{"TABLEFULL_AS_MAIN=1"}
}

// TestRatioConsole prints the console's cost at a 1 s interval in a 200×50
// pane against htop's at the same refresh, measured in the same run
// (make bench). Goals: CPU ≤ htop's, RSS ≤ 30 MB, first frame ≤ 150 ms.
func TestRatioConsole(t *testing.T) {
	if _, err := exec.LookPath("htop"); err != nil {
		t.Skip("needs htop for the reference")
	}
	const span = 20 * time.Second
	argv, env := consoleArgv(t)

	start := time.Now()
	pid, socket := paneProcess(t, 200, 50, env, append(argv, "--interval", "1s")...)
	var first time.Duration
	for time.Since(start) < 5*time.Second {
		out, _ := exec.Command("tmux", "-L", socket, "capture-pane", "-p").Output()
		if strings.Contains(string(out), "LIVE") && strings.Contains(string(out), "conntrack") {
			first = time.Since(start)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	ours := cpuPercent(t, pid, span)
	rss, hwm := statusKB(t, pid, "VmRSS"), statusKB(t, pid, "VmHWM")

	hpid, _ := paneProcess(t, 200, 50, nil, "htop", "-d", "10")
	theirs := cpuPercent(t, hpid, span)

	fmt.Printf("    console CPU %.2f %% of a core, htop %.2f %% at the same 1 s refresh: %.2f× (goal ≤ 1×)\n", ours, theirs, ours/max(theirs, 0.01))
	fmt.Printf("    console RSS %.1f MB (peak %.1f MB), goal ≤ 30 MB\n", float64(rss)/1024, float64(hwm)/1024)
	fmt.Printf("    first frame %d ms after start (including tmux), goal ≤ 150 ms\n", first.Milliseconds())
}
