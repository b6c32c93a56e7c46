package sources

import (
	"fmt"
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

// testCgroup makes the cgroup rel under cgroupV2, open for starting
// processes in it, and removes it (and the parents it leaves empty) when
// the test ends; it skips without cgroup v2.
func testCgroup(t *testing.T, rel string) *os.File {
	t.Helper()
	if _, err := os.Stat(filepath.Join(cgroupV2, "cgroup.procs")); err != nil {
		t.Skip("needs cgroup v2 at " + cgroupV2)
	}
	dir := filepath.Join(cgroupV2, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.Close()
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ { // its processes take a moment to go
			time.Sleep(20 * time.Millisecond)
		}
		for d := filepath.Dir(dir); d != cgroupV2; d = filepath.Dir(d) {
			os.Remove(d) // stays while another test's cgroup is in it
		}
	})
	return f
}

// inCgroup starts cmd as a process of the cgroup cg (cloned into it: it
// never runs anywhere else) and kills it when the test ends.
func inCgroup(t *testing.T, cg *os.File, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
}

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
	h, err := ns.Hold("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	addr := h.Addr()
	tag := strconv.Itoa(os.Getpid())
	unit := testCgroup(t, "tablefull-test-"+tag+".slice/steady.service")
	uid := "3f2a9c1e_1b2c_4d5e_8f90_" + fmt.Sprintf("%012d", os.Getpid())
	pod := testCgroup(t, "tablefull-test-"+tag+"-kubepods.slice/kubepods-besteffort-pod"+uid+".slice/cri-containerd-0123456789abcdef.scope")
	clients := map[string]int{}
	for _, c := range []struct {
		cg *os.File
		n  int
	}{{unit, 40}, {pod, 15}} {
		cmd := ns.Command("python3", "-c", netns.HoldScript, addr, strconv.Itoa(c.n))
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
