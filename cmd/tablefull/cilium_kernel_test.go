package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
)

// TestSnapshotReadsCiliumMaps: with a conntrack map pinned where Cilium
// pins its own, 1,000 entries of 1,024, tablefull snapshot reads it (JSON
// and text) and the console's analyzer names it, the limit Cilium's;
// with none pinned it says nothing of Cilium.
func TestSnapshotReadsCiliumMaps(t *testing.T) {
	needKernel(t)
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	sys := t.TempDir()
	fs := filepath.Join(sys, "fs", "bpf")
	os.MkdirAll(fs, 0o755)
	if err := unix.Mount("bpf", fs, "bpf", 0, ""); err != nil {
		t.Skipf("mount bpf: %v", err)
	}
	defer unix.Unmount(fs, unix.MNT_DETACH)
	snapshot := func(args ...string) []byte {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, append([]string{"snapshot", "--sysfs", sys}, args...)...)
		cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("snapshot: %v\n%s", err, out)
		}
		return out
	}
	if out := snapshot(); strings.Contains(string(out), "cilium") {
		t.Errorf("no map pinned, yet:\n%s", out)
	}
	os.MkdirAll(filepath.Join(fs, "tc", "globals"), 0o755)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 14, ValueSize: 8, MaxEntries: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range uint32(1000) {
		key := make([]byte, 14)
		binary.BigEndian.PutUint32(key, i)
		m.Put(key, make([]byte, 8))
	}
	if err := m.Pin(filepath.Join(fs, "tc", "globals", "cilium_ct4_global")); err != nil {
		t.Fatal(err)
	}
	var snap remote.Snapshot
	if err := json.Unmarshal(snapshot("--json"), &snap); err != nil {
		t.Fatal(err)
	}
	c := snap.Sample.Cilium
	if c == nil || len(c.Maps) != 1 || c.Maps[0] != (model.CiliumMap{Name: "cilium_ct4_global", Entries: 1000, Max: 1024}) {
		t.Fatalf("snapshot's Cilium maps: %+v", c)
	}
	if out := snapshot(); !strings.Contains(string(out), "cilium_ct4_global  1,000 of 1,024 entries (98 %): sized by bpf-ct-global-tcp-max") {
		t.Errorf("snapshot text:\n%s", out)
	}
	v := model.NewAnalyzer(2).Add(snap.Sample).Verdict()
	if v.Kind != model.CiliumCT || !strings.Contains(v.Evidence, "the limit is Cilium's") {
		t.Errorf("verdict %s", v)
	}
}
