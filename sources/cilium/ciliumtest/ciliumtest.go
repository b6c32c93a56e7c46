// Package ciliumtest gives kernel tests the maps Cilium pins: a BPF
// filesystem of the test's own and conntrack maps pinned in it where
// Cilium pins its own. It is imported by tests only.
package ciliumtest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// BPFFS mounts a BPF filesystem of its own under a temporary sysfs root
// and returns the root and the directory Cilium pins its maps in
// (tc/globals). It skips without root or a BPF filesystem, and unmounts
// when the test ends.
func BPFFS(t testing.TB) (sys, globals string) {
	t.Helper()
	kernelfstest.Need(t, "a BPF filesystem and its maps")
	if err := rlimit.RemoveMemlock(); err != nil {
		t.Fatal(err)
	}
	sys = t.TempDir()
	fs := filepath.Join(sys, "fs", "bpf")
	if err := os.MkdirAll(fs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("bpf", fs, "bpf", 0, ""); err != nil {
		t.Skipf("mount bpf: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(fs, unix.MNT_DETACH) })
	globals = filepath.Join(fs, "tc", "globals")
	if err := os.MkdirAll(globals, 0o755); err != nil {
		t.Fatal(err)
	}
	return sys, globals
}

// PinMap pins at path an LRU hash map as Cilium makes its conntrack maps
// (a tuple's key, a small value), of size max holding n entries.
//
// The puts run on one CPU: an LRU map hands each CPU a batch of free
// entries, and a goroutine that migrates between puts strands a batch on
// each CPU it left, so the map evicts before it is full (CI read 872 of
// 1,000 in a map of 1,024).
func PinMap(t testing.TB, path string, max, n uint32) {
	t.Helper()
	defer onOneCPU(t)()
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

// PinKeys pins at path an LRU hash map of size max holding keys, as
// PinMap does: a map whose keys say who fills it.
func PinKeys(t testing.TB, path string, max uint32, keys [][]byte) {
	t.Helper()
	defer onOneCPU(t)()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.LRUHash, KeySize: uint32(len(keys[0])), ValueSize: 8, MaxEntries: max})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, k := range keys {
		if err := m.Put(k, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Pin(path); err != nil {
		t.Fatal(err)
	}
}

// Tuple4 is Cilium's struct ipv4_ct_tuple as a map key: daddr, saddr,
// dport, sport (network order), nexthdr, flags.
func Tuple4(daddr, saddr [4]byte, dport, sport uint16, nexthdr, flags uint8) []byte {
	k := make([]byte, 14)
	copy(k, daddr[:])
	copy(k[4:], saddr[:])
	binary.BigEndian.PutUint16(k[8:], dport)
	binary.BigEndian.PutUint16(k[10:], sport)
	k[12], k[13] = nexthdr, flags
	return k
}

// onOneCPU keeps the calling goroutine on its thread and that thread on
// one of the CPUs it may run on, until the returned func is called.
func onOneCPU(t testing.TB) (restore func()) {
	t.Helper()
	runtime.LockOSThread()
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	cpu := 0
	for !all.IsSet(cpu) {
		cpu++
	}
	var one unix.CPUSet
	one.Set(cpu)
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	return func() {
		unix.SchedSetaffinity(0, &all)
		runtime.UnlockOSThread()
	}
}

// Metric is one row of Cilium's metrics map: a reason (0 forwarded, else
// a drop reason), a direction, and the packets counted on each CPU.
type Metric struct {
	Reason, Dir uint8
	PerCPU      []uint64
}

// PinMetrics pins at path a per-CPU hash keyed and valued as Cilium's
// cilium_metrics (struct metrics_key: reason, direction, 6 more bytes;
// struct metrics_value: packets, bytes), or, with keySize other than 8,
// a map of a layout tablefull does not know. It returns the map, open,
// for the test to update.
func PinMetrics(t testing.TB, path string, keySize uint32, rows []Metric) *ebpf.Map {
	t.Helper()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: keySize, ValueSize: 16, MaxEntries: 1024})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	PutMetrics(t, m, rows)
	if err := m.Pin(path); err != nil {
		t.Fatal(err)
	}
	return m
}

// PutMetrics writes rows into a map PinMetrics made, each CPU's packets
// with as many bytes times 100.
func PutMetrics(t testing.TB, m *ebpf.Map, rows []Metric) {
	t.Helper()
	cpus, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		key := make([]byte, m.KeySize())
		key[0], key[1] = r.Reason, r.Dir
		values := make([][]byte, cpus)
		for i := range values {
			values[i] = make([]byte, 16)
			if i < len(r.PerCPU) {
				binary.NativeEndian.PutUint64(values[i], r.PerCPU[i])
				binary.NativeEndian.PutUint64(values[i][8:], 100*r.PerCPU[i])
			}
		}
		if err := m.Put(key, values); err != nil {
			t.Fatal(err)
		}
	}
}
