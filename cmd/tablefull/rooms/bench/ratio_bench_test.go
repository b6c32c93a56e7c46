//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
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

// cpuNanos is the CPU time all of pid's threads have run, from their
// schedstat (nanoseconds; /proc/PID/stat counts in 10 ms ticks, too coarse
// for a process using half a percent).
func cpuNanos(t *testing.T, pid int) float64 {
	paths, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if len(paths) == 0 {
		t.Fatalf("no threads for pid %d", pid)
	}
	var sum float64
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		v, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
		sum += v
	}
	return sum
}

// cpuPercent measures pid's CPU, in percent of a core, over d after a
// warm-up.
func cpuPercent(t *testing.T, pid int, d time.Duration) float64 {
	time.Sleep(2 * time.Second)
	a := cpuNanos(t, pid)
	time.Sleep(d)
	return 100 * (cpuNanos(t, pid) - a) / float64(d.Nanoseconds())
}

// firstFrame is how long after start the pane of tmux server socket
// first shows "LIVE" and "conntrack"; it fails after 5 s.
func firstFrame(t *testing.T, socket string, start time.Time) time.Duration {
	t.Helper()
	for time.Since(start) < 5*time.Second {
		out, _ := exec.Command("tmux", "-L", socket, "capture-pane", "-p").Output()
		if strings.Contains(string(out), "LIVE") && strings.Contains(string(out), "conntrack") {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no first frame within 5 s")
	return 0
}

// medianDuration is the median of v.
func medianDuration(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// consoleArgv is the console to measure: make build's binary, else this
// test binary as tablefull.
func consoleArgv(t *testing.T) (argv, env []string) {
	if bin, err := filepath.Abs("../../../../tablefull"); err == nil {
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
// Each program runs alone (its own tmux server, the others' gone), in
// alternating rounds, and the medians are compared. It also prints the
// floor: an idle program run as the console is (tui.Run).
func TestRatioConsole(t *testing.T) {
	if _, err := exec.LookPath("htop"); err != nil {
		t.Skip("needs htop for the reference")
	}
	const span, rounds = 20 * time.Second, 3
	argv, env := consoleArgv(t)
	idle := filepath.Join(t.TempDir(), "idletea")
	if out, err := exec.Command("go", "build", "-o", idle, "./testdata/idletea").CombinedOutput(); err != nil {
		t.Fatalf("build the idle reference: %v\n%s", err, out)
	}
	// alone runs argv in a pane of its own; stop ends it.
	alone := func(env []string, argv ...string) (pid int, socket string, stop func()) {
		pid, socket = paneProcess(t, 200, 50, env, argv...)
		return pid, socket, func() { exec.Command("tmux", "-L", socket, "kill-server").Run() }
	}
	var ours, theirs, floor []float64
	var rss, hwm int
	var firsts, echoes []time.Duration
	for range rounds {
		start := time.Now()
		_, socket, stop := alone(nil, "sh", "-c", "echo LIVE conntrack; exec sleep 60")
		echoes = append(echoes, firstFrame(t, socket, start))
		stop()
	}
	for range rounds {
		start := time.Now()
		pid, socket, stop := alone(env, append(slices.Clone(argv), "--interval", "1s")...)
		firsts = append(firsts, firstFrame(t, socket, start))
		ours = append(ours, cpuPercent(t, pid, span))
		rss, hwm = max(rss, int(clitest.StatusField(pid, "VmRSS:"))), max(hwm, int(clitest.StatusField(pid, "VmHWM:")))
		stop()
		hpid, _, stop := alone(nil, "htop", "-d", "10")
		theirs = append(theirs, cpuPercent(t, hpid, span))
		stop()
		ipid, _, stop := alone(nil, idle)
		floor = append(floor, cpuPercent(t, ipid, span))
		stop()
	}
	o, h, f := median(ours), median(theirs), median(floor)
	goal(t, o <= h, "console CPU %.2f %% of a core, htop %.2f %% at the same 1 s refresh: %.2f× (goal ≤ 1×); medians of %d rounds of %s each, each program alone",
		o, h, o/max(h, 0.01), rounds, span)
	fmt.Printf("    rounds: console %.2f, htop %.2f\n", ours, theirs)
	fmt.Printf("    floor: an idle program run as the console is (tui.Run) costs %.2f %% (%.0f %% of htop's); the console's own work is %.2f %%\n", f, 100*f/max(h, 0.01), o-f)
	goal(t, hwm <= 30*1024, "console RSS %.1f MB (peak %.1f MB), goal ≤ 30 MB", float64(rss)/1024, float64(hwm)/1024)
	first, echo := medianDuration(firsts), medianDuration(echoes)
	goal(t, first-echo <= 150*time.Millisecond, "first frame %d ms after start: %d ms in tmux, less the %d ms a shell's echo takes to show in a pane alike (medians of %d), goal ≤ 150 ms",
		(first - echo).Milliseconds(), first.Milliseconds(), echo.Milliseconds(), rounds)
}

// median of at least one value.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
