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

// TestKernelThreadReadsOneByte: a process's command line is read one
// byte to tell a kernel thread, whatever argv a user gave it.
func TestKernelThreadReadsOneByte(t *testing.T) {
	dir := t.TempDir()
	for name, argv := range map[string][]byte{"kthread": nil, "huge": make([]byte, 1<<20)} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "cmdline"), argv, 0o644)
	}
	if !kernelThread(filepath.Join(dir, "kthread")) || kernelThread(filepath.Join(dir, "huge")) {
		t.Errorf("kernel thread: empty %v, 1 MB %v", kernelThread(filepath.Join(dir, "kthread")), kernelThread(filepath.Join(dir, "huge")))
	}
	allocs := testing.AllocsPerRun(20, func() { kernelThread(filepath.Join(dir, "huge")) })
	var m1, m2 runtime.MemStats
	runtime.ReadMemStats(&m1)
	for range 100 {
		kernelThread(filepath.Join(dir, "huge"))
	}
	runtime.ReadMemStats(&m2)
	if per := (m2.TotalAlloc - m1.TotalAlloc) / 100; per > 4096 {
		t.Errorf("%d bytes allocated a call (%.0f allocations): the argv is read whole", per, allocs)
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
