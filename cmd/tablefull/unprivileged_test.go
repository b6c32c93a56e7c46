package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestSnapshotUnprivileged runs the snapshot as nobody: everything
// readable is read, the kernel log says it needs root, nothing fails.
func TestSnapshotUnprivileged(t *testing.T) {
	kernelfstest.Need(t, "a run as nobody")
	bin := nobodyBinary(t)
	cmd := exec.Command(bin, "snapshot", "--json")
	cmd.Env = []string{"TABLEFULL_AS_MAIN=1", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("snapshot as nobody: %v", err)
	}
	var doc oneshot.Snapshot
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Sample
	restricted, _ := os.ReadFile("/proc/sys/kernel/dmesg_restrict")
	if string(restricted) == "1\n" && (s.Kernel.Readable || s.Kernel.Note == "") {
		t.Errorf("kernel log as nobody: readable=%v note=%q, want a note saying it needs root", s.Kernel.Readable, s.Kernel.Note)
	}
	if len(s.CPU) == 0 || s.Conntrack.Status == model.TableUnreadable {
		t.Errorf("readable parts missing as nobody: %d CPUs, conntrack %q", len(s.CPU), s.Conntrack.Status)
	}
	if _, err := os.Stat("/proc/net/stat/nf_conntrack"); err == nil && len(s.CTStats.PerCPU) == 0 {
		t.Errorf("per-CPU stats missing as nobody though the file is world-readable: %s", s.CTStats.Note)
	}

	census := exec.Command(bin, "census")
	census.Env = cmd.Env
	census.SysProcAttr = cmd.SysProcAttr
	out, err = census.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs root (CAP_NET_ADMIN)") {
		t.Errorf("census as nobody: %v %q, want a plain refusal", err, out)
	}
}

// nobodyBinary copies this test binary where user nobody can run it.
func nobodyBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tablefull-nobody-") // t.TempDir's parent is 0700
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tablefull")
	copyFile(t, exe, bin)
	return bin
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
