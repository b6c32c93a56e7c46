package nstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// CgroupV2 is the cgroup v2 hierarchy on this kind of machine (hybrid).
const CgroupV2 = "/sys/fs/cgroup/unified"

// Cgroup makes the cgroup rel under CgroupV2, open for starting
// processes in it, and removes it (and the parents it leaves empty) when
// the test ends; it skips without cgroup v2.
func Cgroup(t testing.TB, rel string) *os.File {
	t.Helper()
	if _, err := os.Stat(filepath.Join(CgroupV2, "cgroup.procs")); err != nil {
		t.Skip("needs cgroup v2 at " + CgroupV2)
	}
	dir := filepath.Join(CgroupV2, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ { // its processes take a moment to go
			time.Sleep(20 * time.Millisecond)
		}
		for d := filepath.Dir(dir); d != CgroupV2; d = filepath.Dir(d) {
			os.Remove(d) // stays while another test's cgroup is in it
		}
	})
	return f
}

// StartIn starts cmd as a process of the cgroup cg (cloned into it: it
// never runs anywhere else) and kills it when the test ends.
func StartIn(t testing.TB, cg *os.File, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}
