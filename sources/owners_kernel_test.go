package sources

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns"
)

// cgroupV2 is the cgroup v2 hierarchy on this kind of machine (hybrid).
const cgroupV2 = "/sys/fs/cgroup/unified"

// testCgroup makes the cgroup at path under cgroupV2 and removes it (and
// its parents up to the root) when the test ends; it returns the open
// directory, for starting processes in it.
func testCgroup(t *testing.T, path string) *os.File {
	t.Helper()
	if _, err := os.Stat(filepath.Join(cgroupV2, "cgroup.procs")); err != nil {
		t.Skip("needs cgroup v2 at " + cgroupV2)
	}
	dir := filepath.Join(cgroupV2, path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for d := dir; d != cgroupV2; d = filepath.Dir(d) {
			for i := 0; i < 50 && os.Remove(d) != nil && d == dir; i++ { // its processes may take a moment to go
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
	return f
}

// inCgroup starts cmd as a process of the cgroup cg (clone3 into it: it
// never runs anywhere else) and kills it when the test ends.
func inCgroup(t *testing.T, cg *os.File, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

// holdingServer accepts connections in ns and keeps them open until the
// test ends.
func holdingServer(t *testing.T, ns *netns.NS) string {
	t.Helper()
	var ln net.Listener
	if err := ns.Do(func() (err error) { ln, err = net.Listen("tcp", "127.0.0.1:0"); return err }); err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	t.Cleanup(func() {
		ln.Close()
		for _, c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	return ln.Addr().String()
}

// holdScript opens n connections to an address and keeps them.
const holdScript = `import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
conns = [socket.create_connection((host, int(port))) for _ in range(int(sys.argv[2]))]
print("held", flush=True)
time.sleep(600)
`

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
	ns, _ := eventsNS(t)
	addr := holdingServer(t, ns)
	tag := strconv.Itoa(os.Getpid())
	unit := testCgroup(t, "tablefull-test-"+tag+".slice/steady.service")
	uid := "3f2a9c1e_1b2c_4d5e_8f90_" + fmt.Sprintf("%012d", os.Getpid())
	pod := testCgroup(t, "tablefull-test-"+tag+"-kubepods.slice/kubepods-besteffort-pod"+uid+".slice/cri-containerd-0123456789abcdef.scope")
	clients := map[string]int{}
	for _, c := range []struct {
		cg *os.File
		n  int
	}{{unit, 40}, {pod, 15}} {
		cmd := ns.Command("python3", "-c", holdScript, addr, strconv.Itoa(c.n))
		out, _ := cmd.StdoutPipe()
		inCgroup(t, c.cg, cmd)
		buf := make([]byte, 5)
		if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
			t.Fatalf("client: %q, %v", buf, err)
		}
		clients[strconv.Itoa(cmd.Process.Pid)] = c.n
	}
	var cen model.Census
	if err := ns.Do(func() (err error) {
		cen, err = CensusDump{Timeout: 10 * time.Second, Proc: "/proc"}.Run(10)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	o := cen.Owners
	if o == nil || o.Error != "" || len(o.Top) != 2 {
		t.Fatalf("census of %d entries, owners %+v", cen.Total, o)
	}
	want := []string{
		fmt.Sprintf("python3 (pid %d, steady.service) 40 → %s (40)", pidOf(clients, 40), addr),
		fmt.Sprintf("python3 (pid %d, pod 3f2a9c1e-1b2c-4d5e-8f90-%012d) 15 → %s (15)", pidOf(clients, 15), os.Getpid(), addr),
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
