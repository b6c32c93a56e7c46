package sources

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"github.com/tablefull/tablefull/sources/owners"
)

// TestOwnersInDelegatedSubtree: an unprivileged user (uid 65534) holds
// connections from a cgroup of their own delegated subtree that they
// named like a pod and a unit (user@65534.service/kubepods/pod3f2a-1b/
// sshd.service): the census names the owner as that user's, never a
// pod or a system unit.
func TestOwnersInDelegatedSubtree(t *testing.T) {
	for _, tool := range []string{"/usr/bin/python3", "setpriv"} { // the system's python: another user's may be unreadable
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	ns, _ := nstest.Tracked(t)
	h, err := ns.Hold("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	tag := strconv.Itoa(os.Getpid())
	cg := nstest.Cgroup(t, "tablefull-test-"+tag+".slice/user@65534.service/kubepods/pod3f2a-1b/sshd.service")
	cmd := ns.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", netns.HoldScript, h.Addr(), "12")
	out, _ := cmd.StdoutPipe()
	var errb strings.Builder
	cmd.Stderr = &errb
	nstest.StartIn(t, cg, cmd)
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf[:4]) != "held" {
		t.Fatalf("client: %q, %v: %s", buf, err, errb.String())
	}
	cen := dumpIn(t, ns)
	if cen.Owners == nil || len(cen.Owners.Top) == 0 {
		t.Fatalf("owners %+v", cen.Owners)
	}
	o := cen.Owners.Top[0].Owner
	if o.Kind != "user" || o.Group != "uid 65534: sshd.service" || strings.Contains(o.String(), "pod") {
		t.Errorf("the user's own cgroup is shown as %q (kind %q)", o.String(), o.Kind)
	}
}

// pressScript (run as another user) opens 5 listeners with a backlog of
// 1 and 2 clients waiting on each, forks a child that keeps them (the
// test moves it to a cgroup of its own: the sockets stay the first
// cgroup's), closes its own copies, then fills argv[1] children with
// 5,000 open files each, prints its child's pid and waits.
const pressScript = `import os, resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
ls, cs = [], []
for _ in range(5):
    l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1); ls.append(l)
    for _ in range(2):
        c = socket.socket(); c.setblocking(False)
        try: c.connect(l.getsockname())
        except BlockingIOError: pass
        cs.append(c)
keeper = os.fork()
if keeper == 0:
    time.sleep(120); os._exit(0)
for l in ls: l.close()
files = [open("/dev/null") for _ in range(5000)]
for _ in range(int(sys.argv[1])):
    if os.fork() == 0:
        time.sleep(120); os._exit(0)
print(keeper, flush=True)
time.sleep(120)
`

// TestHandedOffListenersStayInBudget: a user's five listeners with a
// backlog of 1 and two waiting each, handed to a process of another
// cgroup, and 20 processes of 5,000 open files each in the cgroup the
// sockets name: the lookup of their owners reads at most its budget and
// says so, and a sample of the namespace keeps its pace.
func TestHandedOffListenersStayInBudget(t *testing.T) {
	for _, tool := range []string{"/usr/bin/python3", "setpriv"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	ns, _ := nstest.Tracked(t)
	tag := strconv.Itoa(os.Getpid())
	first := nstest.Cgroup(t, "tablefull-test-"+tag+".slice/press.scope")
	other := nstest.Cgroup(t, "tablefull-test-"+tag+".slice/keeper.scope")
	cmd := ns.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", pressScript, "20")
	out, _ := cmd.StdoutPipe()
	nstest.StartGroup(t, cmd, first)
	var keeper int
	if _, err := fmt.Fscan(out, &keeper); err != nil || keeper <= 0 {
		t.Fatalf("press: %d %v", keeper, err)
	}
	if err := os.WriteFile(filepath.Join(other.Name(), "cgroup.procs"), []byte(strconv.Itoa(keeper)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(keeper, syscall.SIGKILL) })
	var ls model.Listeners
	var took time.Duration
	if err := ns.Do(func() error {
		began := time.Now()
		ls = owners.ReadListeners("/proc", owners.SocketDump{Timeout: 2 * time.Second}, nil)
		took = time.Since(began)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ls.Pressed) != model.ListenersShown || !strings.Contains(ls.Note, "owner lookup over budget") {
		t.Errorf("%d pressed, note %q: want the five, the budget said", len(ls.Pressed), ls.Note)
	}
	if took > 10*time.Second { // the bound is a count of fds; its time is the machine's (1 s under a loaded CI)
		t.Errorf("the lookup took %s", took)
	}
}
