package sources

// What a local user shapes, bounded: the tests of how the attribution
// reads it (see the README's "What a local user can shape").

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestResolveWalksOnceForUnknownGroups: ids whose group is gone (a
// scope that sent its datagrams and exited) cost one walk of the
// hierarchy between them, then none: a later Read does not walk for
// them again, even when a directory with that id appears.
func TestResolveWalksOnceForUnknownGroups(t *testing.T) {
	dir := t.TempDir()
	unit := filepath.Join(dir, "system.slice", "web.service")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(unit, &st); err != nil {
		t.Fatal(err)
	}
	w := &WhoProbes{roots: ownerRoots{cgroup2: dir}, groups: map[uint64]model.Owner{}, unknown: map[uint64]struct{}{}}
	gone := make([]uint64, 4096)
	for i := range gone {
		gone[i] = 1<<40 + uint64(i)
	}
	if walked := w.resolve(append(gone, st.Ino)); walked != len(gone)+1 {
		t.Errorf("one walk for %d ids, want %d", walked, len(gone)+1)
	}
	if o := w.owner(st.Ino, 0, ""); o.Group != "web.service" || o.Kind != "unit" {
		t.Errorf("the live group: %+v", o)
	}
	if len(w.unknown) != len(gone) {
		t.Fatalf("%d ids remembered as unknown, want %d", len(w.unknown), len(gone))
	}
	if walked := w.resolve(append(gone, st.Ino)); walked != 0 {
		t.Errorf("the next read walked again for %d ids", walked)
	}
	for _, id := range gone[:3] {
		if o := w.owner(id, 0, ""); o.Kind != "" {
			t.Errorf("an unknown id named after all: %+v", o)
		}
	}
	if len(w.groups) != 1 {
		t.Errorf("groups %v", w.groups)
	}
}

// TestOwnerLookupBudget: processes whose fd tables a user multiplied
// (here three of 600 fds each, the wanted socket in the last, against a
// budget of 1,000) cost at most the budget's readlinks in all; the
// lookup says it ran out instead of reading on.
func TestOwnerLookupBudget(t *testing.T) {
	proc := t.TempDir()
	for pid := 1; pid <= 3; pid++ {
		fd := filepath.Join(proc, strconv.Itoa(pid), "fd")
		if err := os.MkdirAll(fd, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range 600 {
			if err := os.Symlink(fmt.Sprintf("socket:[%d]", pid*100000+i), filepath.Join(fd, strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	wanted := map[uint32]int{3*100000 + 599: 0}
	denied, over := findProcesses(ownerRoots{proc: proc}, false, nil, wanted, 1000)
	if denied || !over || wanted[3*100000+599] != 0 {
		t.Errorf("denied %v, over %v, found %v: want the budget to run out first", denied, over, wanted)
	}
	near := map[uint32]int{1*100000 + 5: 0}
	if _, over := findProcesses(ownerRoots{proc: proc}, false, nil, near, 1000); over || near[100005] != 1 {
		t.Errorf("a socket within the budget: over %v, found %v", over, near)
	}
}

// TestAwayOwnersAmbiguousAddress: a user's namespace that claims a pod's
// address names neither: the address is said to be ambiguous, whatever
// order the namespaces are read in.
func TestAwayOwnersAmbiguousAddress(t *testing.T) {
	proc := filepath.Join(t.TempDir(), "proc")
	fib := "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 10.78.0.2\n        /32 host LOCAL\n"
	process := func(pid, net, cgroup, addrs string) {
		dir := filepath.Join(proc, pid)
		os.MkdirAll(filepath.Join(dir, "ns"), 0o755)
		os.MkdirAll(filepath.Join(dir, "net"), 0o755)
		os.Symlink("net:["+net+"]", filepath.Join(dir, "ns", "net"))
		os.WriteFile(filepath.Join(dir, "cgroup"), []byte(cgroup), 0o644)
		os.WriteFile(filepath.Join(dir, "comm"), []byte("x\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "net", "fib_trie"), []byte(addrs), 0o644)
	}
	process("thread-self", "1", "0::/init.scope\n", "")
	process("10", "200", "0::/kubepods.slice/kubepods-pod3f2a.slice/cri-containerd-aa.scope\n", fib)
	one := awayOwners(proc)
	if o := one[netip.MustParseAddr("10.78.0.2")]; o.Kind != "pod" {
		t.Fatalf("the pod's address alone: %+v", o)
	}
	process("11", "300", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n", fib)
	two := awayOwners(proc)
	if o := two[netip.MustParseAddr("10.78.0.2")]; o.Group != "ambiguous: 2 namespaces claim 10.78.0.2" {
		t.Errorf("an address two namespaces claim: %+v", o)
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
