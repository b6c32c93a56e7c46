package console

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestSnapshotUnprivileged runs the snapshot as nobody: everything
// readable is read, the kernel log says it needs root, nothing fails.
func TestSnapshotUnprivileged(t *testing.T) {
	kernelfstest.Need(t, "a run as nobody")
	bin := clitest.NobodyBinary(t)
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
