package kernelfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestWriteAtomicKilledBeforeRename: a process killed between write and
// rename leaves the old file whole.
func TestWriteAtomicKilledBeforeRename(t *testing.T) {
	if path := os.Getenv("TABLEFULL_KILL_WRITE"); path != "" {
		beforeRename = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
		WriteAtomic(path, []byte("new contents\n"), 0o644)
		return
	}
	path := filepath.Join(t.TempDir(), "99-tablefull.conf")
	os.WriteFile(path, []byte("old contents\n"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWriteAtomicKilledBeforeRename$")
	cmd.Env = append(os.Environ(), "TABLEFULL_KILL_WRITE="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the writer was not killed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old contents\n" {
		t.Errorf("after a kill the file holds %q", b)
	}
}

// TestWriteAtomicFullDisk: on a full filesystem the old file stays intact.
func TestWriteAtomicFullDisk(t *testing.T) {
	kernelfstest.Need(t, "a tiny tmpfs mounted")
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "99-tablefull.conf")
	os.WriteFile(path, []byte("net.netfilter.nf_conntrack_max = 4096\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 12<<10), 0o644)
	err := WriteAtomic(path, []byte(strings.Repeat("net.netfilter.nf_conntrack_max = 32768\n", 400)), 0o644)
	if err == nil {
		t.Fatal("a write to a full disk succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "net.netfilter.nf_conntrack_max = 4096\n" {
		t.Errorf("old file damaged: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("temporary file left behind: %v", entries)
	}
}
