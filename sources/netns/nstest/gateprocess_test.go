package nstest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestGateAcrossProcesses: a claim made by another test process keeps a
// disagreeing one out, as one of this process's would; when that process
// is killed before its cleanups, its claim is dropped and the knob only
// it set is written back, while a knob another living process still sets
// stays set, its journal naming the living setter.
func TestGateAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(t.TempDir(), "nf_conntrack_max")
	shared := filepath.Join(t.TempDir(), "hashsize")
	for _, p := range []string{alone, shared} {
		if err := os.WriteFile(p, []byte("262144\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return strings.TrimSpace(string(b)) }

	child := exec.Command(os.Args[0], "-test.run", "^TestGateHelperProcess$")
	child.Env = append(os.Environ(), "NSTEST_GATE_DIR="+dir, "NSTEST_GATE_KNOBS="+alone+":"+shared)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("the other process said %q, want held", line)
	}

	g := newKnobGate(dir)
	restoreShared, err := g.set("TestMine", shared, "64")
	if err != nil {
		t.Fatal(err)
	}
	var admitted atomic.Bool
	go func() {
		if release, err := g.hold("TestMine", Claim{Max: 4096}); err == nil {
			admitted.Store(true)
			defer release()
		}
	}()
	time.Sleep(10 * g.poll)
	if admitted.Load() {
		t.Error("a cap of 4096 was admitted beside another process's claim of 64")
	}
	if got := read(alone); got != "64" {
		t.Errorf("the other process's knob reads %s, want 64", got)
	}

	child.Process.Kill()
	child.Wait()
	waitFor(t, admitted.Load)
	if got := read(alone); got != "262144" {
		t.Errorf("the knob only the killed process set reads %s, want 262144 back", got)
	}
	if got := read(shared); got != "64" {
		t.Errorf("the knob this process still sets reads %s after the other setter was killed, want 64", got)
	}
	if got := journalOwner(t, dir, shared); got != g.process {
		t.Errorf("the journal names %q as the shared knob's setter, want this process %q", got, g.process)
	}
	if err := restoreShared(); err != nil || read(shared) != "262144" {
		t.Errorf("after this process's setting ended the shared knob reads %s (%v), want 262144", read(shared), err)
	}
}

// TestGateHelperProcess is the other process of TestGateAcrossProcesses:
// it claims a cap of 64, sets both knobs, says so and waits to be killed.
func TestGateHelperProcess(t *testing.T) {
	dir, knobs := os.Getenv("NSTEST_GATE_DIR"), os.Getenv("NSTEST_GATE_KNOBS")
	if dir == "" {
		t.Skip("run by TestGateAcrossProcesses")
	}
	g := newKnobGate(dir)
	if _, err := g.hold("TestTheirs", Claim{Max: 64}); err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(knobs, ":") {
		if _, err := g.set("TestTheirs", p, "64"); err != nil {
			t.Fatal(err)
		}
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
}

// journalOwner is the process the knobs' journal in dir names as the
// setter of the knob at path.
func journalOwner(t *testing.T, dir, path string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.knob"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if lines := strings.Split(string(b), "\n"); len(lines) > 2 && lines[0] == path {
			return lines[2]
		}
	}
	return ""
}
