package nstest

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// StartGroup starts cmd in a process group of its own, in cgroup cg when
// it is not nil, and kills the whole group (a shell's loop, a script's
// forks) when the test ends.
func StartGroup(t testing.TB, cmd *exec.Cmd, cg *os.File) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cg.Fd())
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
}

// WaitUp waits for a started script to say "up" on out: what it set up
// before (listeners, forks, sockets) is in place.
func WaitUp(t testing.TB, out io.Reader) {
	t.Helper()
	buf := make([]byte, 2)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "up" {
		t.Fatalf("the script did not say up: %q %v", buf, err)
	}
}
