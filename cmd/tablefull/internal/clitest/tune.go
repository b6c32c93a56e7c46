package clitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/netns"
)

// TuneFromHost runs `tablefull tune --netns name args…` on the host and
// returns its exit code, stdout and stderr.
func TuneFromHost(t *testing.T, name string, args ...string) (int, string, string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"tune", "--netns", name}, args...)...)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// FollowUntilFree runs the guided loop on namespace name, JSON, and
// checks what the issue asks of it: freed within 3 steps, each verified,
// no plan over 5 % of RAM. It returns the steps.
func FollowUntilFree(t *testing.T, name, stateDir string) []tunecmd.LoopStep {
	t.Helper()
	code, out, errs := TuneFromHost(t, name, "--until-free", "--yes", "--json", "--observe", "4s", "--state-dir", stateDir)
	var steps []tunecmd.LoopStep
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var s tunecmd.LoopStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("step line %q: %v", sc.Text(), err)
		}
		steps = append(steps, s)
		t.Logf("step %d: %v → %s", s.Step, s.Plan.Changes, s.Said)
	}
	if code != 0 || len(steps) == 0 || len(steps) > 3 {
		t.Fatalf("tune --until-free: exit %d after %d steps: %s%s", code, len(steps), out, errs)
	}
	if last := steps[len(steps)-1]; last.State != "freed" && last.State != "settle" {
		t.Errorf("ended %q: %s", last.State, last.Said)
	} else if w := last.Workload; w == nil || w.After.DropsPS != 0 || w.Before.Seconds < 3 || w.After.Seconds < 1 {
		t.Errorf("freed, the workload: %+v; want it over the --observe before the first step, and no drop after the last", w)
	}
	for _, s := range steps {
		if s.Plan.Cost.PctOfRAM > tuning.MemWarnPct {
			t.Errorf("step %d takes %.1f %% of RAM", s.Step, s.Plan.Cost.PctOfRAM)
		}
		for _, r := range s.Results {
			if !r.Verified {
				t.Errorf("step %d: %s not verified (%q)", s.Step, r.Key, r.After)
			}
		}
	}
	return steps
}

// UndoFromHost undoes the loop's steps and checks the global max and the
// namespace's knob key are back where they were.
func UndoFromHost(t *testing.T, ns *netns.NS, stateDir, capMax, key, before string) {
	t.Helper()
	if code, out, errs := TuneFromHost(t, ns.Name, "--undo", "--state-dir", stateDir); code != 0 {
		t.Fatalf("undo: exit %d: %s%s", code, out, errs)
	}
	if got := ReadSysctl(t, nil, knob.Max); got != capMax {
		t.Errorf("after undo nf_conntrack_max = %s, want %s", got, capMax)
	}
	if got := ReadSysctl(t, ns, key); got != before {
		t.Errorf("after undo %s = %s in the namespace, want %s", key, got, before)
	}
}

// WaitPinned waits until the namespace's count reaches capMax.
func WaitPinned(t *testing.T, ns *netns.NS, capMax uint64, within time.Duration) {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if n, _ := strconv.ParseUint(ReadSysctl(t, ns, "net.netfilter.nf_conntrack_count"), 10, 64); n >= capMax {
			return
		}
	}
	t.Fatalf("the namespace's table did not pin at %d within %s", capMax, within)
}

// StartUntilEnd runs cmd until the test ends.
func StartUntilEnd(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// NsDrops is the namespace's table's drop counter, summed over CPUs
// (/proc/net/stat/nf_conntrack: hexadecimal columns under a header).
func NsDrops(t *testing.T, ns *netns.NS) uint64 {
	t.Helper()
	out, err := ns.Output("cat", "/proc/net/stat/nf_conntrack")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	col := slices.Index(strings.Fields(lines[0]), "drop")
	if col < 0 {
		t.Fatalf("no drop column in %q", lines[0])
	}
	var sum uint64
	for _, l := range lines[1:] {
		if f := strings.Fields(l); col < len(f) {
			v, _ := strconv.ParseUint(f[col], 16, 64)
			sum += v
		}
	}
	return sum
}

// tableOf is a namespace's count and drops (summed over its CPUs), read
// from the kernel, not from the screen.
func tableOf(t *testing.T, ns *netns.NS) (count, drops uint64) {
	t.Helper()
	out, err := ns.Output("conntrack", "-S")
	if err != nil {
		t.Fatalf("conntrack -S: %v", err)
	}
	for _, row := range ParseConntrackS(t, out) {
		drops += row["drop"]
	}
	count, _ = strconv.ParseUint(ReadSysctl(t, ns, "net.netfilter.nf_conntrack_count"), 10, 64)
	return count, drops
}

// Freed waits up to within for the table to be free: no drop for 5 s and
// the count under the cap. It gives up early once the panel's loop in s
// (when not nil) says the table is still pinned (the next step is on
// screen).
func Freed(t *testing.T, s *Tmux, ns *netns.NS, within time.Duration) bool {
	t.Helper()
	_, lastDrops := tableOf(t, ns)
	began, quietSince := time.Now(), time.Now()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		count, drops := tableOf(t, ns)
		capMax, _ := strconv.ParseUint(ReadSysctl(t, nil, knob.Max), 10, 64)
		if drops != lastDrops || count >= capMax {
			lastDrops, quietSince = drops, time.Now()
		}
		if time.Since(quietSince) >= 5*time.Second {
			return true
		}
		if s != nil && time.Since(began) > 3*time.Second && strings.Contains(s.Capture(false), "loop still pinned") { // the screen shows this apply's loop
			return false
		}
	}
	return false
}

// ApplyUntilFree presses a and y in the open tuning panel, at most three
// times, waiting after each as an operator does, until the table is free
// at no more than 5 % of RAM; it returns how many applies it took.
func ApplyUntilFree(t *testing.T, s *Tmux, ns *netns.NS) int {
	t.Helper()
	for step := 1; step <= 3; step++ {
		s.WaitFor("a apply")
		s.Keys("a")
		s.WaitFor("y/n")
		s.Keys("y")
		s.WaitFor("apply done")
		if Freed(t, s, ns, 45*time.Second) {
			capMax, _ := strconv.ParseUint(ReadSysctl(t, nil, knob.Max), 10, 64)
			if pct := tuning.MemoryCost(capMax, capMax, 0, MemTotal(t)).PctOfRAM; pct > tuning.MemWarnPct {
				t.Errorf("freed at %d entries: %.1f %% of RAM", capMax, pct)
			}
			t.Logf("freed after %d applies at nf_conntrack_max %d", step, capMax)
			return step
		}
		t.Logf("step %d: still pinned:\n%s", step, s.Capture(false))
	}
	t.Fatalf("not freed within 3 applies:\n%s", s.Capture(false))
	return 0
}

// MemTotal is this machine's RAM in bytes.
func MemTotal(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var kb uint64
	fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
	return kb << 10
}

// UndoRestores presses u and y and checks the cap is back at capMax.
func UndoRestores(t *testing.T, s *Tmux, capMax string) {
	t.Helper()
	s.Keys("u")
	s.WaitFor("undo the last apply? y/n")
	s.Keys("y")
	s.WaitFor("undo done")
	if got := ReadSysctl(t, nil, knob.Max); got != capMax {
		t.Errorf("after u nf_conntrack_max = %s, want %s", got, capMax)
	}
}

// TuneIn runs `tablefull tune args…` (in ns when not nil) and returns its
// exit code and output.
func TuneIn(t *testing.T, ns *netns.NS, args ...string) (int, string) {
	t.Helper()
	exe, _ := os.Executable()
	args = append([]string{"tune", "--observe", "0"}, args...)
	var cmd *exec.Cmd
	if ns != nil {
		cmd = ns.Command(exe, args...)
	} else {
		cmd = exec.Command(exe, args...)
	}
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// ReadSysctl reads key (as sysctl names it) inside ns (nil: the host).
func ReadSysctl(t *testing.T, ns *netns.NS, key string) string {
	path := "/proc/sys/" + strings.ReplaceAll(key, ".", "/")
	if ns == nil {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	out, err := ns.Output("cat", path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(out), " ")
}
