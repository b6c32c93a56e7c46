package tune

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeProc is a procfs root with one process per name, pid 1 up, each
// root in the host's user namespace with a root-owned executable (what
// trustedManager asks of a manager).
func fakeProc(t *testing.T) (root string, put func(pid, comm string)) {
	t.Helper()
	root = t.TempDir()
	put = func(pid, comm string) {
		dir := filepath.Join(root, pid)
		os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
		os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "cmdline"), []byte(comm+"\x00"), 0o644)
		os.WriteFile(filepath.Join(dir, "status"), []byte("Name:\t"+comm+"\nUid:\t0\t0\t0\t0\n"), 0o644)
		os.Symlink("user:[4026531837]", filepath.Join(dir, "ns", "user"))
		os.Symlink("/bin/sh", filepath.Join(dir, "exe"))
	}
	put("self", "tablefull")
	return root, put
}

// TestManagerLookRemembersByPid: a look finds kube-proxy as FindManagers
// does and forgets it when it goes; a pid judged once is not read again
// until the whole look, which finds a process that exec'd kube-proxy
// under the pid it had; a pid gone at a look and back is judged anew.
func TestManagerLookRemembersByPid(t *testing.T) {
	proc, put := fakeProc(t)
	put("1", "init")
	put("40", "kube-proxy")
	look := &ManagerLook{Proc: proc}
	if !look.Present() || len(FindManagers(proc)) != 1 {
		t.Fatal("kube-proxy running, not found")
	}
	os.RemoveAll(filepath.Join(proc, "40"))
	if look.Present() {
		t.Fatal("kube-proxy gone, still present")
	}
	put("41", "runc:[2:INIT]")
	if look.Present() {
		t.Fatal("a runtime's init taken for kube-proxy")
	}
	os.WriteFile(filepath.Join(proc, "41", "comm"), []byte("kube-proxy\n"), 0o644) // it exec'd
	looks := 1
	for ; !look.Present(); looks++ {
		if looks > WholeLookEvery {
			t.Fatalf("kube-proxy under a pid judged before: not found in %d looks", looks)
		}
	}
	if looks == 1 {
		t.Error("a pid judged before was read again at the next look: a look reads only new pids")
	}
	os.RemoveAll(filepath.Join(proc, "41"))
	look.Present()
	put("41", "kube-proxy") // the pid came back as another process
	if !look.Present() {
		t.Error("a pid gone at a look and back as kube-proxy: not judged anew")
	}
}
