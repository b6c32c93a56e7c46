package nstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/owners"
)

// CgroupV2 is where the cgroup v2 hierarchy is mounted here, as the
// owners' walk finds it: /sys/fs/cgroup on a unified host,
// /sys/fs/cgroup/unified on a hybrid one; "" when none is.
var CgroupV2 = sync.OnceValue(func() string { return owners.Cgroup2Mount("/proc/self/mountinfo") })

// NeedCgroupV2 is the cgroup v2 hierarchy; the test skips, saying so,
// when none is mounted.
func NeedCgroupV2(t testing.TB) string {
	t.Helper()
	root := CgroupV2()
	if _, err := os.Stat(filepath.Join(root, "cgroup.procs")); root == "" || err != nil {
		t.Skipf("needs cgroup v2 (mounted: %q)", root)
	}
	return root
}

// Cgroup makes the cgroup rel under the cgroup v2 hierarchy, open for
// starting processes in it, and removes it (and the parents it leaves
// empty) when the test ends; it skips without cgroup v2.
func Cgroup(t testing.TB, rel string) *os.File {
	t.Helper()
	root := NeedCgroupV2(t)
	dir := filepath.Join(root, rel)
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
		for d := filepath.Dir(dir); d != root; d = filepath.Dir(d) {
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
