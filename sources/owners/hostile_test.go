package owners

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

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
	denied, over := findProcesses(Trees{Proc: proc}, false, nil, wanted, 1000)
	if denied || !over || wanted[3*100000+599] != 0 {
		t.Errorf("denied %v, over %v, found %v: want the budget to run out first", denied, over, wanted)
	}
	near := map[uint32]int{1*100000 + 5: 0}
	if _, over := findProcesses(Trees{Proc: proc}, false, nil, near, 1000); over || near[100005] != 1 {
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
	one := ownersInOtherNetns(proc)
	if o := one[netip.MustParseAddr("10.78.0.2")]; o.Kind != "pod" {
		t.Fatalf("the pod's address alone: %+v", o)
	}
	process("11", "300", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n", fib)
	two := ownersInOtherNetns(proc)
	if o := two[netip.MustParseAddr("10.78.0.2")]; o.Group != "ambiguous: 2 namespaces claim 10.78.0.2" {
		t.Errorf("an address two namespaces claim: %+v", o)
	}
}
