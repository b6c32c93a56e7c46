package namespaces

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
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
	kernelfstest.Need(t, "a namespace")
	big := strings.Repeat("a", 128<<10-1)
	args := []string{"--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", forkScript, "999"}
	for range 8 {
		args = append(args, big)
	}
	cmd := exec.Command("setpriv", args...)
	out, _ := cmd.StdoutPipe()
	nstest.StartGroup(t, cmd, nil)
	nstest.WaitUp(t, out)
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

// emptyArgv empties the calling process's command line as any user may
// (prctl PR_SET_MM_MAP with the argument area's end at its start), says
// "empty" and sleeps.
const emptyArgv = `import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
f = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
def fld(n): return int(f[n - 3])
class M(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("start_code", "end_code", "start_data", "end_data", "start_brk", "brk",
        "start_stack", "arg_start", "arg_end", "env_start", "env_end")] + [("auxv", ctypes.c_void_p), ("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]
libc.sbrk.restype = ctypes.c_void_p
m = M(fld(26), fld(27), fld(45), fld(46), fld(47), libc.sbrk(0), fld(28), fld(48), fld(48), fld(50), fld(51), None, 0, 0xffffffff)
if libc.prctl(35, 14, ctypes.byref(m), ctypes.sizeof(m), 0) != 0 or open("/proc/self/cmdline", "rb").read():
    print("kept", flush=True)
else:
    print("empty", flush=True)
time.sleep(60)
`

// TestNamespaceOfAnEmptiedArgvShows: an unprivileged user (uid 65534)
// makes a network namespace of its own and empties its process's command
// line, which the walk once took for a kernel thread's: the namespace is
// still found.
func TestNamespaceOfAnEmptiedArgvShows(t *testing.T) {
	for _, tool := range []string{"/usr/bin/python3", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	kernelfstest.Need(t, "a namespace")
	cmd := exec.Command("unshare", "-Urn", "/usr/bin/python3", "-c", emptyArgv)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	buf := make([]byte, 5)
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatalf("the process that empties its command line said nothing: %v", err)
	}
	if string(buf) != "empty" {
		t.Skipf("this kernel keeps the command line (%q): nothing to hide with here", buf)
	}
	ino, err := kernelfs.NetnsInode(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "ns", "net"))
	if err != nil {
		t.Fatal(err)
	}
	ns := NewNamespaces(kernelfs.Roots{Proc: "/proc"}).Read(time.Now(), 262144)
	if ns == nil {
		t.Fatal("no namespaces read")
	}
	for _, r := range ns.Rows {
		if r.Inode == ino {
			return
		}
	}
	t.Errorf("the namespace %d of a process with an emptied command line is not among %d rows (+%d others)", ino, len(ns.Rows), ns.Others)
}
