package namespaces

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/ti-mo/conntrack"
)

// udpFlows are n UDP entries to a resolver, as a namespace's clients make.
func udpFlows(n int) []conntrack.Flow { return udpFlowsFrom(0, n) }

// udpFlowsFrom is udpFlows' flows from the from'th on.
func udpFlowsFrom(from, n int) []conntrack.Flow {
	var flows []conntrack.Flow
	for i := from; i < from+n; i++ {
		flows = append(flows, conntrack.NewFlow(17, conntrack.StatusConfirmed, netip.MustParseAddr("10.9.0.2"),
			netip.MustParseAddr("10.9.0.53"), uint16(40000+i), 53, 120, 0))
	}
	return flows
}

// kernelNS makes a namespace holding n entries, deleted when the test
// ends; it skips without root.
func kernelNS(t *testing.T, suffix string, n int) *netns.NS {
	t.Helper()
	kernelfstest.Need(t, "a namespace")
	ns, err := netns.Create(fmt.Sprintf("tft-%d-%s", os.Getpid(), suffix))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Delete() })
	if err := ns.Insert(udpFlows(n)); err != nil {
		t.Fatal(err)
	}
	return ns
}

// TestNamespaceWithoutProcess: a namespace no process is in — ip netns
// add and a table of its own, as a router's or a CNI's — is found by its
// bind mount, named by it and read over ctnetlink inside it; near the cap
// its drops are read too, and once deleted it leaves without an error.
func TestNamespaceWithoutProcess(t *testing.T) {
	ns := kernelNS(t, "empty", 37)
	n := NewNamespaces(kernelfs.DefaultRoots())
	row := func(at time.Time, capMax uint64) (r *struct {
		count uint64
		drops bool
		kind  string
	}) {
		for _, x := range n.Read(at, capMax).Rows {
			if x.Name == ns.Name {
				return &struct {
					count uint64
					drops bool
					kind  string
				}{x.Count, x.DropsRead, x.Kind}
			}
		}
		return nil
	}
	r := row(time.Now(), 262144)
	if r == nil || r.count != 37 || r.kind != "netns" || r.drops {
		t.Fatalf("namespace without a process: %+v, want 37 entries, named netns, drops not read far from the cap", r)
	}
	if r := row(time.Now(), 40); r == nil || !r.drops {
		t.Errorf("near the cap: %+v, want its drops read", r)
	}
	if err := ns.Delete(); err != nil {
		t.Fatal(err)
	}
	if r := row(time.Now(), 40); r != nil {
		t.Errorf("a deleted namespace is still read: %+v", r)
	}
}

// TestNamespaceWithoutStatFile: on a kernel without conntrack's procfs a
// process's namespace is read over ctnetlink through /proc/PID/ns/net.
func TestNamespaceWithoutStatFile(t *testing.T) {
	ns := kernelNS(t, "nostat", 23)
	sleeper := ns.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	pid := childIn(t, sleeper)
	if err := ns.Delete(); err != nil { // no mount: the process is the only way in
		t.Fatal(err)
	}
	n := NewNamespaces(kernelfs.DefaultRoots())
	n.statFile = "net/stat/absent" // as a kernel without CONFIG_NF_CONNTRACK_PROCFS
	for _, r := range n.Read(time.Now(), 262144).Rows {
		if r.PID == pid {
			if r.Count != 23 {
				t.Errorf("read through ctnetlink: %+v, want 23 entries", r)
			}
			return
		}
	}
	t.Errorf("the sleeper's namespace (pid %d) was not read", pid)
}

// childIn is the pid of the process ip netns exec became: ip execs the
// command, so it is the command's own.
func childIn(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", c.Process.Pid)); err == nil && string(comm) == "sleep\n" {
			return c.Process.Pid
		}
	}
	t.Fatal("ip netns exec did not become sleep")
	return 0
}

// TestEmptyNamespacesReadRarely: an empty namespace no process is in
// (ip netns add, nothing in it) is entered again after NamespacesEvery,
// then twice as long each time it is still empty, up to
// EmptyRereadEvery, its row kept as read meanwhile; one with entries is
// read at every sample. A thousand idle ones must not cost a thousand
// setns a sample, and a new one that fills is seen within seconds.
func TestEmptyNamespacesReadRarely(t *testing.T) {
	empty := kernelNS(t, "idle", 0)
	busy := kernelNS(t, "busy", 5)
	n := NewNamespaces(kernelfs.DefaultRoots())
	counts := func(at time.Time) map[string]uint64 {
		out := map[string]uint64{}
		for _, x := range n.Read(at, 262144).Rows {
			out[x.Name] = x.Count
		}
		return out
	}
	t0 := time.Now()
	if c := counts(t0); c[empty.Name] != 0 || c[busy.Name] != 5 {
		t.Fatalf("first read: %v", c)
	}
	if err := empty.Insert(udpFlows(3)); err != nil {
		t.Fatal(err)
	}
	more := []conntrack.Flow{conntrack.NewFlow(17, conntrack.StatusConfirmed, netip.MustParseAddr("10.9.0.3"),
		netip.MustParseAddr("10.9.0.53"), 41000, 53, 120, 0)}
	if err := busy.Insert(more); err != nil {
		t.Fatal(err)
	}
	if c := counts(t0.Add(2 * time.Second)); c[empty.Name] != 0 || c[busy.Name] != 6 {
		t.Errorf("the next sample: %v, want the empty one as read (0) and the busy one read again (6)", c)
	}
	if c := counts(t0.Add(2 * NamespacesEvery)); c[empty.Name] != 3 {
		t.Errorf("after %s the once-empty namespace reads %d, want 3", 2*NamespacesEvery, c[empty.Name])
	}
	spaced := 0
	for i, p := range n.known { // read empty again and again: its rereads space out to EmptyRereadEvery
		if p.name != empty.Name {
			continue // another namespace: the busy one, or another test's
		}
		spaced++
		p.idleFor = EmptyRereadEvery / 2
		at := t0.Add(3 * NamespacesEvery)
		p.idleUntil = at
		if out, err := empty.Command("conntrack", "-F").CombinedOutput(); err != nil {
			t.Skipf("conntrack -F: %v %s", err, out)
		}
		counts(at)
		if p := n.known[i]; p.idleFor != EmptyRereadEvery {
			t.Errorf("after an empty read at %s, reread in %s, want %s", EmptyRereadEvery/2, p.idleFor, EmptyRereadEvery)
		}
	}
	if spaced != 1 {
		t.Errorf("the empty namespace was found %d times among those known", spaced)
	}
}
