package cilium

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// bpffs mounts a BPF filesystem of its own under a temporary sysfs root
// and returns the root and the maps' directory in it.
func bpffs(t *testing.T) (string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts a BPF filesystem and makes maps")
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	sys := t.TempDir()
	fs := filepath.Join(sys, "fs", "bpf")
	if err := os.MkdirAll(fs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("bpf", fs, "bpf", 0, ""); err != nil {
		t.Skipf("mount bpf: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(fs, unix.MNT_DETACH) })
	dir := filepath.Join(fs, "tc", "globals")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return sys, dir
}

// pinMap pins an LRU hash map as Cilium makes its conntrack maps (a
// tuple's key, a small value), of size max holding n entries. The puts run
// on one CPU: an LRU map hands each CPU a batch of free entries, and a
// goroutine that migrates between puts strands a batch on each CPU it left,
// so the map evicts before it is full (CI read 872 of 1,000 in a map of
// 1,024).
func pinMap(t *testing.T, path string, max, n uint32) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &one); err != nil {
		t.Fatal(err)
	}
	cpu := 0
	for !one.IsSet(cpu) {
		cpu++
	}
	var keep unix.CPUSet
	keep.Set(cpu)
	if err := unix.SchedSetaffinity(0, &keep); err != nil {
		t.Fatal(err)
	}
	defer unix.SchedSetaffinity(0, &one)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: 14, ValueSize: 8, MaxEntries: max})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for i := range n {
		key := make([]byte, 14)
		binary.BigEndian.PutUint32(key, i)
		if err := m.Put(key, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Pin(path); err != nil {
		t.Fatal(err)
	}
}

// TestReadCiliumMaps: real maps pinned where Cilium pins its own are read
// with their size and their entries; none pinned reads nil (no Cilium,
// not a map at 0); the maps are walked again only after CountEvery.
func TestReadCiliumMaps(t *testing.T) {
	sys, dir := bpffs(t)
	r := NewReader(sys)
	now := time.Now()
	if got := r.Read(now); got != nil {
		t.Fatalf("no map pinned read as %+v", got)
	}
	pinMap(t, filepath.Join(dir, "cilium_ct4_global"), 1024, 1000)
	pinMap(t, filepath.Join(dir, "cilium_ct_any4_global"), 512, 7)
	pinMap(t, filepath.Join(dir, "cilium_lb4_services"), 64, 3) // not a conntrack map
	if got := r.Read(now.Add(time.Second)); got != nil {
		t.Errorf("walked again within CountEvery: %+v", got)
	}
	got := r.Read(now.Add(CountEvery))
	if got == nil || len(got.Maps) != 2 || got.Note != "" {
		t.Fatalf("maps %+v", got)
	}
	if m := got.Maps[0]; m.Name != "cilium_ct4_global" || m.Entries != 1000 || m.Max != 1024 {
		t.Errorf("tcp map %+v", m)
	}
	if m := got.Maps[1]; m.Name != "cilium_ct_any4_global" || m.Entries != 7 || m.Max != 512 {
		t.Errorf("any map %+v", m)
	}
}
