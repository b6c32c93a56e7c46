package sources

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestOwnersOfLiveEntries: two clients in a namespace, each in a cgroup
// of its own (a systemd-like unit and a Kubernetes-like pod), hold
// connections open; the census names each by process and unit or pod,
// with the count it holds and its peer, and the connections' other ends
// (the server's sockets, in this test's own cgroup) are not counted
// again: a loopback connection is one entry.
func TestOwnersOfLiveEntries(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	ns, _ := nstest.Tracked(t)
	h, err := ns.Hold("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	addr := h.Addr()
	tag := strconv.Itoa(os.Getpid())
	unit := nstest.Cgroup(t, "tablefull-test-"+tag+".slice/steady.service")
	uid := "3f2a9c1e_1b2c_4d5e_8f90_" + fmt.Sprintf("%012d", os.Getpid())
	pod := nstest.Cgroup(t, "tablefull-test-"+tag+"-kubepods.slice/kubepods-besteffort-pod"+uid+".slice/cri-containerd-0123456789abcdef.scope")
	clients := map[string]int{}
	for _, c := range []struct {
		cg *os.File
		n  int
	}{{unit, 40}, {pod, 15}} {
		cmd := ns.Command("python3", "-c", netns.HoldScript, addr, strconv.Itoa(c.n))
		out, _ := cmd.StdoutPipe()
		nstest.StartIn(t, c.cg, cmd)
		buf := make([]byte, 5)
		if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
			t.Fatalf("client: %q, %v", buf, err)
		}
		clients[strconv.Itoa(cmd.Process.Pid)] = c.n
	}
	cen := dumpIn(t, ns)
	o := cen.Owners
	if o == nil || o.Error != "" || len(o.Top) != 2 {
		t.Fatalf("census of %d entries, owners %+v", cen.Total, o)
	}
	want := []string{
		fmt.Sprintf("python3 (pid %d, steady.service) 40 → %s (40)", pidOf(clients, 40), addr),
		fmt.Sprintf("pod 3f2a9c1e-1b2c-4d5e-8f90-%012d (python3, pid %d) 15 → %s (15)", os.Getpid(), pidOf(clients, 15), addr),
	}
	for i, c := range o.Top {
		if got := c.Owner.String() + " " + strconv.Itoa(c.N) + " " + c.PeerText(); got != want[i] {
			t.Errorf("owner %d: %q, want %q", i, got, want[i])
		}
	}
	if cen.Total != 55 || o.Unowned.Total() != 0 {
		t.Errorf("%d entries, %v unowned: want the 55 held connections, each owned once", cen.Total, o.Unowned)
	}
}

func pidOf(clients map[string]int, n int) int {
	for pid, k := range clients {
		if k == n {
			p, _ := strconv.Atoi(pid)
			return p
		}
	}
	return 0
}

// TestOwnersOfForwardedEntries: a pod-like namespace reaches a server in
// a third namespace through a node namespace that forwards and tracks;
// the pod's process (in a pod's cgroup) holds connections. The census of
// the node, where no socket of them is, names the pod as their owner,
// forwarded, by the pod's address.
func TestOwnersOfForwardedEntries(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	node, _ := nstest.Tracked(t) // tracked: its input chain; forwarding is tracked below
	tag := strconv.Itoa(os.Getpid())
	mk := func(name string) *netns.NS {
		ns, err := netns.Create(name + tag)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ns.Delete() })
		return ns
	}
	pod, srv := mk("tft-fp-"), mk("tft-fs-")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	for _, l := range []struct {
		ns                            *netns.NS
		dev, peer, addr, gw, nodeAddr string
	}{
		{pod, "eth0", "vp" + tag, "10.98.1.2/24", "10.98.1.1", "10.98.1.1/24"},
		{srv, "eth0", "vs" + tag, "10.98.2.2/24", "10.98.2.1", "10.98.2.1/24"},
	} {
		run("link", "add", l.peer, "netns", node.Name, "type", "veth", "peer", "name", l.dev, "netns", l.ns.Name)
		run("-n", l.ns.Name, "addr", "add", l.addr, "dev", l.dev)
		run("-n", l.ns.Name, "link", "set", l.dev, "up")
		run("-n", l.ns.Name, "route", "add", "default", "via", l.gw)
		run("-n", node.Name, "addr", "add", l.nodeAddr, "dev", l.peer)
		run("-n", node.Name, "link", "set", l.peer, "up")
	}
	if _, err := node.Output("sysctl", "-qw", "net.ipv4.ip_forward=1"); err != nil {
		t.Fatal(err)
	}
	if err := node.Nft("table inet tablefull_fwd {\n\tchain forward {\n\t\ttype filter hook forward priority 0; policy accept;\n\t\tct state established,related accept\n\t}\n}\n"); err != nil {
		t.Fatal(err)
	}
	h, err := srv.Hold("10.98.2.2:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	uid := "7c8d9e0f_" + fmt.Sprintf("%012d", os.Getpid())
	cg := nstest.Cgroup(t, "tablefull-test-"+tag+"-kubepods.slice/kubepods-besteffort-pod"+uid+".slice/cri-containerd-fedcba9876543210.scope")
	cmd := pod.Command("python3", "-c", netns.HoldScript, h.Addr(), "12")
	out, _ := cmd.StdoutPipe()
	nstest.StartIn(t, cg, cmd)
	if b := make([]byte, 5); func() error { _, err := out.Read(b); return err }() != nil {
		t.Fatal("the pod's client did not connect")
	}
	cen := dumpIn(t, node)
	o := cen.Owners
	if o == nil || len(o.Top) == 0 {
		t.Fatalf("census of %d entries: owners %+v", cen.Total, o)
	}
	c := o.Top[0]
	want := fmt.Sprintf("pod 7c8d9e0f-%012d 12 forwarded → %s (12)", os.Getpid(), h.Addr())
	if got := c.Owner.String() + " " + strconv.Itoa(c.N) + " " + c.PeerText(); got != want {
		t.Errorf("owner %q, want %q (owners %+v)", got, want, o.Top)
	}
}
