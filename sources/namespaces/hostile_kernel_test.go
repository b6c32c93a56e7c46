package namespaces

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// TestNamespaceWalkWithHugeArgvs: an unprivileged user runs 1,000
// processes with a 1 MiB command line each: the namespace walk, which
// tells kernel threads by their command line, stays within the
// attribution budget.
func TestNamespaceWalkWithHugeArgvs(t *testing.T) {
	for _, tool := range []string{"/usr/bin/python3", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	big := strings.Repeat("a", 128<<10-1)
	args := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", forkScript, "999"}
	for range 8 {
		args = append(args, big)
	}
	cmd := exec.Command("setpriv", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	buf := make([]byte, 2)
	if _, err := out.Read(buf); err != nil || string(buf) != "up" {
		t.Fatalf("forks: %q %v", buf, err)
	}
	n := NewNamespaces(kernelfs.Roots{Proc: "/proc"})
	began := time.Now()
	n.Read(time.Now(), 262144)
	if took := time.Since(began); took > 3*time.Second { // 9 s when the argvs were read whole; well under 0.5 s idle
		t.Errorf("the walk over 1,000 processes with 1 MiB argvs took %s", took)
	}
}

// TestKernelThreadByFlag: a kernel thread is told by PF_KTHREAD in its
// stat, read in one bounded read; a process that emptied its command line
// (as any can, to hide its namespace) is not one, nor is one whose name
// holds ") 9 9 9 9 9 2097152" to fake the flag.
func TestKernelThreadByFlag(t *testing.T) {
	dir := t.TempDir()
	for name, stat := range map[string]string{
		"kthread":  "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0",
		"emptied":  "4242 (sleep) S 1 4242 4242 0 -1 4194560 120 0 0 0 0 0",
		"fakename": "4243 (x) 9 9 9 9 9 2097152) S 1 4243 4243 0 -1 4194560 120 0 0 0",
		"huge":     "4244 (y) S 1 1 1 0 -1 4194560 " + strings.Repeat("1 ", 1<<19),
	} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "stat"), []byte(stat), 0o644)
		os.WriteFile(filepath.Join(dir, name, "cmdline"), nil, 0o644)
	}
	for name, want := range map[string]bool{"kthread": true, "emptied": false, "fakename": false, "huge": false, "missing": false} {
		if got := kernelThread(filepath.Join(dir, name)); got != want {
			t.Errorf("%s: kernel thread %v, want %v", name, got, want)
		}
	}
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	for range 100 {
		kernelThread(filepath.Join(dir, "huge"))
	}
	runtime.ReadMemStats(&m2)
	if per := (m2.TotalAlloc - m1.TotalAlloc) / 100; per > 4096 {
		t.Errorf("%d bytes allocated a call: the stat is read whole", per)
	}
}

// forkScript forks argv[1] children that sleep, prints "up" and waits;
// its argv (and so each child's) carries eight 128 KiB arguments.
const forkScript = `import os, sys, time
for _ in range(int(sys.argv[1])):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
print("up", flush=True)
time.sleep(60)
`
