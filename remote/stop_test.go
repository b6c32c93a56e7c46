package remote

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestStopLeavesNoProcess: when Stop returns, the command is gone, even
// one that ignores its stdin closing and SIGTERM; Stop takes about the
// grace, not forever.
func TestStopLeavesNoProcess(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	p := &Process{Argv: []string{"sh", "-c", `trap "" TERM HUP; echo $$ > ` + pidFile + `; exec sleep 60 < /dev/null`}, MinBackoff: time.Hour}
	p.Start(time.Second)
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 {
		t.Fatal("the command did not start")
	}
	start := time.Now()
	p.Stop()
	if took := time.Since(start); took > stopGrace+2*time.Second {
		t.Errorf("Stop took %s", took)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("pid %d still exists after Stop returned (kill 0: %v)", pid, err)
	}
}

// TestTeeStopNeverStarts: ending a recording that the user already
// stopped with r does not start a new one (the lab's exit did).
func TestTeeStopNeverStarts(t *testing.T) {
	dir := t.TempDir()
	tee := &Tee{Source: fixedSource{}, Dir: dir}
	if err := tee.Start(filepath.Join(dir, "lab.jsonl")); err != nil {
		t.Fatal(err)
	}
	if _, on, err := tee.Toggle(); on || err != nil { // r during the lab
		t.Fatalf("toggle: on %v, %v", on, err)
	}
	tee.Stop()
	tee.Stop()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files after the lab: %v, want only lab.jsonl", entries)
	}
}

type fixedSource struct{}

func (fixedSource) Host() model.Host            { return model.Host{Name: "h"} }
func (fixedSource) Next() (model.Sample, error) { return model.Sample{}, nil }
