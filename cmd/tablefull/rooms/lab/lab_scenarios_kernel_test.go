package lab

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
)

// labGrace is how many samples a lab runs on once its verdict is said:
// what a "never" check (never TABLE FULL, never a false alarm) reads past
// the verdict it waited for.
const labGrace = 4

// labLines runs a headless lab for duration and returns its sample lines.
func labLines(t *testing.T, scenario, duration string) []string {
	t.Helper()
	return labUntil(t, scenario, duration, nil)
}

// labUntil runs a headless lab for at most duration and returns its
// sample lines. Once said holds of the lines so far, the lab runs
// labGrace samples more and is ended as an operator ends it (SIGTERM: it
// restores what it changed and exits 0), so a scenario takes as long as
// its verdict does, not its longest wait on a loaded machine. A nil said
// runs the whole duration.
func labUntil(t *testing.T, scenario, duration string, said func(lines []string) bool) []string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "lab", scenario, "--headless", "--duration", duration, "--interval", "500ms")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	var all bytes.Buffer
	cmd.Stderr = &all
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	saidAt := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		l := sc.Text()
		all.WriteString(l + "\n")
		if !clitest.VerdictRe.MatchString(l) {
			continue
		}
		lines = append(lines, l)
		if saidAt < 0 && said != nil && said(lines) {
			saidAt = len(lines)
		}
		if saidAt >= 0 && len(lines) == saidAt+labGrace {
			cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("lab %s: %v\n%s", scenario, err, all.String())
	}
	if len(lines) < 3 {
		t.Fatalf("lab %s printed %d samples:\n%s", scenario, len(lines), all.String())
	}
	if saidAt >= 0 {
		t.Logf("lab %s: its verdict in sample %d of %d", scenario, saidAt, len(lines))
	}
	return lines
}

// TestLabScenarios: each lab scenario that sets a global knob (the cap,
// the hashsize), waits on the garbage collector's passes, loads every
// CPU, holds more entries than half the cap another test may set, or
// says a verdict a busy machine's SERVER CPU-BOUND outranks (stale-dnat),
// headless, says its verdict and leaves the host as it was. Each lab
// runs until its verdict is said and a few samples after. The others run
// beside the tests that set the cap (TestLabScenariosAtFullSize); every
// scenario is one of the two (TestEveryScenarioTested).
func TestLabScenarios(t *testing.T) {
	clitest.NeedKernel(t)
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	t.Cleanup(func() { os.WriteFile(clitest.MaxPath, []byte(orig), 0o644) })
	t.Run("cpu-bound", func(t *testing.T) { // loads every CPU: never beside other tests
		if lines := labUntil(t, "cpu-bound", "8s", saying("SERVER CPU-BOUND")); !saying("SERVER CPU-BOUND")(lines) {
			t.Errorf("no SERVER CPU-BOUND in:\n%s", strings.Join(lines, "\n"))
		}
		clitest.HostRestored(t, orig)
	})
	t.Run("table-full", func(t *testing.T) {
		clitest.PinThenFull(t, labUntil(t, "table-full", "12s", saying("TABLE FULL")))
		clitest.HostRestored(t, orig)
	})
	t.Run("no-evict", func(t *testing.T) {
		nothingToEvict := saying("TABLE FULL", "nothing to evict", "not the TIME_WAIT hold")
		lines := labUntil(t, "no-evict", "13s", nothingToEvict)
		for _, l := range lines {
			if strings.Contains(l, "early_drops=") && !strings.Contains(l, "early_drops=0 ") {
				t.Errorf("an assured table evicted: %s", l)
			}
		}
		if !nothingToEvict(lines) {
			t.Errorf("TABLE FULL never said there is nothing to evict:\n%s", strings.Join(lines, "\n"))
		}
		clitest.HostRestored(t, orig)
	})
	t.Run("hash-chains", func(t *testing.T) {
		buckets, _ := os.ReadFile(clitest.HashsizePath)
		saysNotFull(t, "hash-chains", "18s", "HASH CHAINS", "raise the hashsize to", "not max")
		if now, _ := os.ReadFile(clitest.HashsizePath); string(now) != string(buckets) {
			t.Errorf("hashsize %s after the lab, was %s", now, buckets)
		}
		clitest.HostRestored(t, orig)
	})
	t.Run("stale-timeouts", func(t *testing.T) {
		saysNotFull(t, "stale-timeouts", "22s", "STALE TIMEOUTS",
			"keep timeouts given before their class's hold was lowered (tcp-open:", "its hold now 1 m 0 s", "conntrack -D")
		clitest.HostRestored(t, orig)
	})
	t.Run("gc-behind", func(t *testing.T) {
		saysNotFull(t, "gc-behind", "12s", "GC BEHIND",
			"had expired and waited for the garbage collector", "the dump reaped them: the count read", "nothing to fix")
		clitest.HostRestored(t, orig)
	})
	t.Run("gc-pinned", func(t *testing.T) {
		expired := saying("TABLE FULL", "entries its dump did not list: expired and not reaped, so the table frees at the garbage collector's pace")
		if lines := labUntil(t, "gc-pinned", "14s", expired); !expired(lines) {
			t.Errorf("TABLE FULL never said the table holds expired entries:\n%s", strings.Join(lines, "\n"))
		}
		clitest.HostRestored(t, orig)
	})
	t.Run("clash", func(t *testing.T) { // its UDP entries stand over half a cap the others set
		if !clitest.KernelResolvesClashes(t) { // before 5.6 the race dropped: INSERT CLASH
			saysNotFull(t, "clash", "7s", "INSERT CLASH", "two flows raced for one tuple", "single-request-reopen")
			return
		}
		resolved := func(lines []string) bool {
			return strings.Contains(strings.Join(lines, "\n"), "clashes the kernel resolved (clash_resolve: harmless)")
		}
		lines := labUntil(t, "clash", "7s", resolved)
		for _, l := range lines {
			if busyMachine(t, l) {
				// its verdict says the resolved clashes too
			} else if !strings.Contains(l, `verdict="OK"`) || !strings.Contains(l, " drops=0 ") {
				t.Errorf("a resolved race told as a problem: %s", l)
			}
		}
		if !resolved(lines) {
			t.Errorf("no resolved clash said:\n%s", strings.Join(lines, "\n"))
		}
		clitest.HostRestored(t, orig)
	})
	t.Run("stale-dnat", func(t *testing.T) { // a busy CPU's verdict outranks it: never beside other tests
		lines := saysNotFull(t, "stale-dnat", "13s", "STALE DNAT", "40 UDP entries a DNAT sent to 127.0.0.2:5353 (asked as 127.0.0.53:53), which the ruleset no longer names (none ever saw a reply)",
			"conntrack -D -p udp --reply-src 127.0.0.2")
		for _, l := range lines[:min(len(lines), 12)] { // the rule still sends there: not answering, not gone
			if strings.Contains(l, `verdict="STALE DNAT"`) {
				t.Errorf("STALE DNAT before the rule moved: %s", l)
			}
		}
		clitest.HostRestored(t, orig)
	})
}

// saying is whether a lab's lines have one line with verdict and every
// one of words.
func saying(verdict string, words ...string) func(lines []string) bool {
	return func(lines []string) bool {
		for _, l := range lines {
			has := strings.Contains(l, `verdict="`+verdict+`"`)
			for _, w := range words {
				has = has && strings.Contains(l, w)
			}
			if has {
				return true
			}
		}
		return false
	}
}

// busyMachine reports a headless line that is SERVER CPU-BOUND with its
// CPU over the rule's threshold and no drop: a machine too busy for the
// lab's own traffic is CPU-bound in truth, not a false alarm. It is
// logged.
func busyMachine(t *testing.T, l string) bool {
	m := cpuOfLine.FindStringSubmatch(l)
	if m == nil || !strings.Contains(l, `verdict="SERVER CPU-BOUND"`) || !strings.Contains(l, " drops=0 ") {
		return false
	}
	if busy, _ := strconv.ParseFloat(m[1], 64); busy < diagnose.CPUBoundPct {
		return false
	}
	t.Logf("the machine was busy: %s", l)
	return true
}

// cpuOfLine is a headless line's CPU busy share ("cpu=98").
var cpuOfLine = regexp.MustCompile(` cpu=([0-9.]+)`)

// saysNotFull runs scenario's lab until it says verdict with every one of
// words (its evidence and its fix), and checks it never said TABLE FULL;
// it returns the lines.
func saysNotFull(t *testing.T, scenario, duration, verdict string, words ...string) []string {
	t.Helper()
	said := saying(verdict, words...)
	lines := labUntil(t, scenario, duration, said)
	for _, l := range lines {
		if strings.Contains(l, `verdict="TABLE FULL"`) {
			t.Errorf("%s told as a full table: %s", verdict, l)
		}
	}
	if !said(lines) {
		t.Errorf("%s with %q never said:\n%s", verdict, words, strings.Join(lines, "\n"))
	}
	return lines
}
