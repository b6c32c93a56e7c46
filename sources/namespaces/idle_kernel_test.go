package namespaces

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/ti-mo/conntrack"
)

// rereadWhenAllDue makes every one of ours due at t0, reads at t0+after
// and returns how many of them that read read again.
func rereadWhenAllDue(n *Namespaces, ours map[uint64]bool, t0 time.Time, after time.Duration, capMax uint64) int {
	for ino := range ours {
		n.known[ino].idleUntil = t0
	}
	n.Read(t0.Add(after), capMax)
	reread := 0
	for ino := range ours {
		if !n.known[ino].idleUntil.Equal(t0) {
			reread++
		}
	}
	return reread
}

// countAfterFilling makes none of ours due, reads at at (the check's
// baseline: the slack of the per-CPU caches), inserts flows into fills
// and returns the count of fills the next read reads.
func countAfterFilling(t *testing.T, n *Namespaces, ours map[uint64]bool, fills *netns.NS, flows []conntrack.Flow, at time.Time) uint64 {
	t.Helper()
	for ino := range ours {
		n.known[ino].idleUntil = at.Add(time.Hour)
	}
	n.Read(at, 2000)
	if err := fills.Insert(flows); err != nil {
		t.Fatal(err)
	}
	for _, r := range n.Read(at.Add(time.Second), 2000).Rows {
		if r.Name == fills.Name {
			return r.Count
		}
	}
	return 0
}

// TestIdleNamespacesBudgeted: of many empty namespaces no process is in,
// at most IdleReadsPerRead are entered again at a read, however many are
// due; and one of them that gains entries is read at the next read,
// before it is due, because the kernel's entries of every namespace
// (slabinfo) no longer add up to those read.
func TestIdleNamespacesBudgeted(t *testing.T) {
	const many = 12
	var quiet []string
	for i := range many - 1 {
		quiet = append(quiet, kernelNS(t, fmt.Sprintf("q%d", i), 0).Name)
	}
	fills := kernelNS(t, "fills", 0)
	quiet = append(quiet, fills.Name)
	n := NewNamespaces(kernelfs.DefaultRoots())
	t0 := time.Now()
	n.Read(t0, 262144) // every one read once: empty, so idle from now
	ours := map[uint64]bool{}
	for ino, p := range n.known {
		for _, name := range quiet {
			if p.name == name {
				ours[ino] = true
			}
		}
	}
	if len(ours) != many {
		t.Fatalf("found %d of the %d namespaces", len(ours), many)
	}
	if reread := rereadWhenAllDue(n, ours, t0, time.Second, 262144); reread > IdleReadsPerRead {
		t.Errorf("%d idle namespaces entered at one read, want at most %d", reread, IdleReadsPerRead)
	}

	if got := countAfterFilling(t, n, ours, fills, udpFlows(700), t0.Add(2*time.Second)); got != 700 {
		t.Errorf("the idle namespace that gained 700 entries reads %d at the next read, want 700", got)
	}
}

// TestQuietNamespacesBudgeted: namespaces with a process in them whose
// count did not change between two reads are read again on the idle
// budget, not at every read; one that then fills is read at the next
// read, through the kernel's count of every namespace's entries.
func TestQuietNamespacesBudgeted(t *testing.T) {
	if _, ok := NewNamespaces(kernelfs.DefaultRoots()).slabEntries(); !ok {
		t.Skip("no nf_conntrack slab count in sysfs: no namespace is quiet here")
	}
	const many = 10
	var names []string
	var fills *netns.NS
	for i := range many {
		ns := kernelNS(t, fmt.Sprintf("p%d", i), 20)
		c := ns.Command("sleep", "600")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		waitInside(t, c.Process.Pid, ns)
		names, fills = append(names, ns.Name), ns
	}
	n := NewNamespaces(kernelfs.DefaultRoots())
	t0 := time.Now()
	n.Read(t0, 2000)
	n.Read(t0.Add(time.Second), 2000) // unchanged: quiet from now
	ours := map[uint64]bool{}
	for ino, p := range n.known {
		if slices.Contains(names, p.name) && p.pid != 0 {
			ours[ino] = true
			if p.idleFor == 0 {
				t.Errorf("%s unchanged over two reads, yet read at every one", p.name)
			}
		}
	}
	if len(ours) != many {
		t.Fatalf("found %d of the %d namespaces with a process", len(ours), many)
	}
	if reread := rereadWhenAllDue(n, ours, t0, 2*time.Second, 2000); reread > IdleReadsPerRead {
		t.Errorf("%d quiet namespaces read at one read, want at most %d", reread, IdleReadsPerRead)
	}
	if got := countAfterFilling(t, n, ours, fills, udpFlowsFrom(1000, 700), t0.Add(3*time.Second)); got != 720 {
		t.Errorf("the quiet namespace that gained 700 entries reads %d at the next read, want 720", got)
	}
}

// waitInside waits until process pid is in namespace ns (ip netns exec
// enters it after it starts).
func waitInside(t *testing.T, pid int, ns *netns.NS) {
	t.Helper()
	want, err := os.Stat(ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if got, err := os.Stat(fmt.Sprintf("/proc/%d/ns/net", pid)); err == nil && os.SameFile(got, want) {
			return
		}
	}
	t.Fatalf("process %d never entered %s", pid, ns.Name)
}

// TestWalkSeesNewMountAtOnce: the mount table is watched, so a namespace
// ip netns adds is in the next walk's rows, not MountsEvery later; and a
// table that did not change is not read again (a thousand ip netns mounts
// make it a thousand lines).
func TestWalkSeesNewMountAtOnce(t *testing.T) {
	kernelfstest.Need(t, "a namespace")
	n := NewNamespaces(kernelfs.DefaultRoots())
	defer n.Close()
	t0 := time.Now()
	n.Read(t0, 262144)
	if n.mountWatch == nil {
		t.Fatal("the mount table is not watched")
	}
	late := kernelNS(t, "late", 0)
	others := kernelfs.WatchMounts("/proc/self/mountinfo") // other packages' tests mount too
	defer others.Close()
	found := false
	ns := n.Read(t0.Add(NamespacesEvery), 262144)
	for _, r := range ns.Rows {
		found = found || r.Name == late.Name
	}
	if !found {
		t.Fatalf("ip netns add %s: not in the next walk's rows %v", late.Name, ns.Rows)
	}
	read := n.mountsRead
	n.Read(t0.Add(2*NamespacesEvery), 262144)
	if others.Changed() {
		t.Log("another test changed the mount table meanwhile: whether a walk reads it only on a change is not judged")
		return
	}
	if !n.mountsRead.Equal(read) {
		t.Errorf("a walk read the mount table again though it did not change")
	}
}
