package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/tunecmd"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// tuneFromHost runs `tablefull tune --netns name args…` on the host and
// returns its exit code, stdout and stderr.
func tuneFromHost(t *testing.T, name string, args ...string) (int, string, string) {
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

// followUntilFree runs the guided loop on namespace name, JSON, and
// checks what the issue asks of it: freed within 3 steps, each verified,
// no plan over 5 % of RAM. It returns the steps.
func followUntilFree(t *testing.T, name, stateDir string) []tunecmd.LoopStep {
	t.Helper()
	code, out, errs := tuneFromHost(t, name, "--until-free", "--yes", "--json", "--observe", "4s", "--state-dir", stateDir)
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

// undoFromHost undoes the loop's steps and checks the global max and the
// namespace's knob key are back where they were.
func undoFromHost(t *testing.T, ns *netns.NS, stateDir, capMax, key, before string) {
	t.Helper()
	if code, out, errs := tuneFromHost(t, ns.Name, "--undo", "--state-dir", stateDir); code != 0 {
		t.Fatalf("undo: exit %d: %s%s", code, out, errs)
	}
	if got := readSysctl(t, nil, knob.Max); got != capMax {
		t.Errorf("after undo nf_conntrack_max = %s, want %s", got, capMax)
	}
	if got := readSysctl(t, ns, key); got != before {
		t.Errorf("after undo %s = %s in the namespace, want %s", key, got, before)
	}
}

// waitPinned waits until the namespace's count reaches capMax.
func waitPinned(t *testing.T, ns *netns.NS, capMax uint64, within time.Duration) {
	t.Helper()
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if n, _ := strconv.ParseUint(readSysctl(t, ns, "net.netfilter.nf_conntrack_count"), 10, 64); n >= capMax {
			return
		}
	}
	t.Fatalf("the namespace's table did not pin at %d within %s", capMax, within)
}

// start runs cmd until the test ends.
func start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// nsDrops is the namespace's table's drop counter, summed over CPUs
// (/proc/net/stat/nf_conntrack: hexadecimal columns under a header).
func nsDrops(t *testing.T, ns *netns.NS) uint64 {
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

// TestUntilFreeLab: the lab's table-full incident, headless and recorded,
// says TABLE FULL as it pins, and is followed by the loop in text: each
// step printed with its undo, the table freed; undo, then the lab's end
// puts the host back and leaves its recording.
func TestUntilFreeLab(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 512, Changes: true}) // the lab's cap
	clitest.NeedKernel(t)
	orig := readSysctl(t, nil, knob.Max)
	exe, _ := os.Executable()
	rec := filepath.Join(t.TempDir(), "lab.jsonl")
	l := exec.Command(exe, "lab", "table-full", "--headless", "--duration", "3m", "--interval", "500ms", "--record", rec)
	l.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var labOut bytes.Buffer
	l.Stdout, l.Stderr = &labOut, &labOut
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	t.Cleanup(func() {
		if !ended {
			l.Process.Signal(syscall.SIGINT)
			l.Wait()
		}
	})
	ns := &netns.NS{Name: lab.NSName}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if _, err := os.Stat(ns.Path()); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no lab namespace: %s", labOut.String())
		}
	}
	waitPinned(t, ns, 512, 20*time.Second)
	state := t.TempDir()
	code, out, errs := tuneFromHost(t, ns.Name, "--until-free", "--yes", "--observe", "4s", "--state-dir", state)
	t.Log(out)
	if code != 0 || !strings.Contains(out, "step 1 of at most 3") || !strings.Contains(out, "undo: tablefull tune --netns") ||
		!strings.Contains(out, ": freed: no drops for") {
		t.Fatalf("tune --until-free on the lab: exit %d:\n%s%s\nlab:\n%s", code, out, errs, labOut.String())
	}
	if !regexp.MustCompile(`(?m)^the workload: drops/s [1-9][0-9.,]* → 0, new connections admitted/s [0-9.,]+ → [1-9][0-9.,]* \(over [0-9].* before the first step, [0-9].* after the last\)$`).MatchString(out) {
		t.Errorf("the loop's closing lines do not give the workload before and after:\n%s", out)
	}
	if n := strings.Count(out, "verified"); n == 0 || strings.Contains(out, "NOT VERIFIED") {
		t.Errorf("steps not verified:\n%s", out)
	}
	undoFromHost(t, ns, state, "512", knob.TimeWait, "120")
	l.Process.Signal(syscall.SIGINT)
	l.Wait()
	ended = true
	hostRestored(t, orig)
	var lines []string
	for _, l := range strings.Split(labOut.String(), "\n") {
		if verdictRe.MatchString(l) {
			lines = append(lines, l)
		}
	}
	pinThenFull(t, lines)
	// the headless lab's --record: every sample it printed, in a recording
	// that reads back (the console's is TestLabConsoleDurationAndFix's)
	got, err := readRecording(rec)
	if err != nil {
		t.Fatalf("the headless lab's recording: %v", err)
	}
	if len(got.Samples) < len(lines) {
		t.Errorf("the headless lab's recording holds %d samples for %d printed", len(got.Samples), len(lines))
	}
}
