package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
