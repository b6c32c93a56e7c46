package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// keeperScript (argv[1] a unix socket path) takes listening sockets
// handed over SCM_RIGHTS, holding each batch until the next.
const keeperScript = `import array, os, socket, sys
srv = socket.socket(socket.AF_UNIX); srv.bind(sys.argv[1]); srv.listen(1)
print("up", flush=True)
conn, _ = srv.accept()
held = []
while True:
    msg, fds, _, _ = socket.recv_fds(conn, 16, 8)
    if not msg:
        break
    for fd in held: os.close(fd)
    held = fds
`

// fillScript fills 20 children with 5,000 open files each: fd tables a
// user multiplied, in the cgroup of the process holding the listeners.
const fillScript = `import os, resource, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
files = [open("/dev/null") for _ in range(5000)]
for _ in range(20):
    if os.fork() == 0:
        time.sleep(600); os._exit(0)
print("up", flush=True)
time.sleep(600)
`

// rotateScript (argv[1] the keeper's socket) makes, every second, five
// listeners with a backlog of 1 and three clients each (one overflows),
// hands them to the keeper and closes its own copies.
const rotateScript = `import socket, sys, time
k = socket.socket(socket.AF_UNIX); k.connect(sys.argv[1])
print("up", flush=True)
clients = []
while True:
    ls = []
    for _ in range(5):
        l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1); ls.append(l)
    for c in clients: c.close()
    clients = []
    for l in ls:
        for _ in range(3):
            c = socket.socket(); c.setblocking(False)
            try: c.connect(l.getsockname())
            except BlockingIOError: pass
            clients.append(c)
    socket.send_fds(k, [b"x"], [l.fileno() for l in ls])
    for l in ls: l.close()
    time.sleep(1)
`

// TestRotatingHandedOffListeners: as uid 65534, five backlog-1 listeners
// recreated every second (no cache holds them) and handed over
// SCM_RIGHTS to a process of another cgroup, where 20 processes of the
// same user hold 5,000 open files each before it: the agent in that
// namespace keeps its 500 ms pace, and the listener lookup says it ran
// over its budget instead of reading on. (On this kernel a socket
// received over SCM_RIGHTS is reported in its receiver's cgroup.)
func TestRotatingHandedOffListeners(t *testing.T) {
	clitest.NeedKernel(t, "setpriv", "/usr/bin/python3")
	t.Setenv("TABLEFULL_AS_MAIN", "1")
	ns := clitest.LabNS(t)
	tag := strconv.Itoa(os.Getpid())
	maker, keeper := clitest.CgroupAt(t, "tablefull-test-"+tag+".slice/rotate.scope"), clitest.CgroupAt(t, "tablefull-test-"+tag+".slice/keeper.scope")
	dir, err := os.MkdirTemp("", "rotate-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	sock := filepath.Join(dir, "keeper")
	asNobody := func(cg *os.File, script string) *exec.Cmd {
		cmd := ns.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, sock)
		out, _ := cmd.StdoutPipe()
		nstest.StartGroup(t, cmd, cg)
		nstest.WaitUp(t, out)
		return cmd
	}
	asNobody(keeper, fillScript)
	asNobody(keeper, keeperScript)
	asNobody(maker, rotateScript)
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	p := &agent.Process{Argv: append(argv, "--state-dir", t.TempDir()), MinBackoff: time.Hour}
	p.Start(500 * time.Millisecond)
	defer p.Stop()
	// The pace over the whole run, not one gap: a loaded machine delays
	// a sample now and then, a lookup that read on through every file
	// delays each (seconds a sample).
	first := clitest.NextSample(t, p).Time
	prev, said := first, false
	for range 12 {
		s := clitest.NextSample(t, p)
		if gap := s.Time.Sub(prev); gap > 2*time.Second {
			t.Errorf("a sample %s after the last at a 500 ms interval", gap)
		}
		prev = s.Time
		if ls := s.Listeners; ls != nil && strings.Contains(ls.Note, "owner lookup over budget") {
			said = true
		}
		said = said || strings.Contains(strings.Join(s.Notes, " "), "the listener lookup over budget")
	}
	if mean := prev.Sub(first) / 12; mean > 700*time.Millisecond {
		t.Errorf("a sample every %s on average at a 500 ms interval", mean)
	}
	if !said {
		t.Errorf("the listener lookup never said it ran over its budget")
	}
}
