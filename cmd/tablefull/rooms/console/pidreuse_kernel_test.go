package console

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/nsenter"
)

// pidReuse is the pid namespace's script: pid 2 runs in netns $A; once
// told (the fifo), it exits and pid 2 is taken by a process of netns $B,
// as a pod's pid is taken by another's after it exits.
const pidReuse = `echo 1 > /proc/sys/kernel/ns_last_pid
ip netns exec "$A" sleep 300 &
echo $! > "$D/first"
read go < "$D/fifo"
kill $! && wait $!
echo 1 > /proc/sys/kernel/ns_last_pid
ip netns exec "$B" sleep 300 &
echo $! > "$D/second"
wait
`

// TestNamespaceOfAPidTakenByAnother: in a pid namespace of the test's
// own, a namespace is opened through its process's pid, as the console
// opens a pod's from the namespaces panel; the process exits and another,
// in another network namespace, takes its pid. Entered by the path
// alone, the same file now leads into the other namespace (the attack);
// through what was opened, listing its entries is refused.
func TestNamespaceOfAPidTakenByAnother(t *testing.T) {
	clitest.NeedKernel(t, "unshare")
	a, b := clitest.LabNS(t), clitest.LabNS(t)
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", pidReuse)
	cmd.Env = append(os.Environ(), "A="+a.Name, "B="+b.Name, "D="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clitest.KillTree(cmd.Process.Pid); cmd.Wait() })
	waitPid := func(file string) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if b, _ := os.ReadFile(filepath.Join(dir, file)); strings.TrimSpace(string(b)) == "2" {
				return
			} else if time.Now().After(end) {
				t.Fatalf("%s: pid %q in the pid namespace, want 2", file, b)
			}
		}
	}
	waitPid("first")
	kids := clitest.Descendants(cmd.Process.Pid)
	if len(kids) == 0 {
		t.Fatal("no process in the pid namespace")
	}
	path := fmt.Sprintf("/proc/%d/root/proc/2/ns/net", kids[0]) // pid 2 as the pid namespace sees it
	inode := func(p string) uint64 {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	// pid 2 is ip netns exec until it has entered the namespace and run
	// sleep: wait for the namespace, not only the pid
	inNetns := func(want uint64) bool {
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			var st syscall.Stat_t
			if syscall.Stat(path, &st) == nil && st.Ino == want {
				return true
			}
		}
		return false
	}
	if !inNetns(inode(a.Path())) {
		t.Fatal("pid 2 is not in the first namespace")
	}
	opened, err := nsenter.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	list, _, _ := sources.NetnsEntries(opened, t.TempDir())
	if _, err := list(entry.Filter{}, "", false, 10); err != nil {
		t.Fatalf("the entries of the namespace opened: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "fifo"), []byte("go\n"), 0o600)
	waitPid("second")
	if !inNetns(inode(b.Path())) {
		t.Fatal("pid 2 was not taken by a process of the second namespace")
	}
	var entered uint64
	nsenter.Net(path, func() error { entered = inode("/proc/thread-self/ns/net"); return nil })
	if entered != inode(b.Path()) {
		t.Fatalf("by the path alone the pid's file leads into namespace %d, not the second (%d): the pid was not taken as the test meant", entered, inode(b.Path()))
	}
	if _, err := list(entry.Filter{}, "", false, 10); !errors.Is(err, nsenter.ErrChanged) {
		t.Errorf("listing through what was opened, after the pid was taken: %v, want it refused", err)
	}
}
