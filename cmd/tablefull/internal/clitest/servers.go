package clitest

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"golang.org/x/sys/unix"
)

// HoldEntries opens and closes n connections inside ns, leaving n
// conntrack entries in TIME_WAIT for two minutes.
func HoldEntries(t *testing.T, ns *netns.NS, n int) {
	t.Helper()
	srv := &netns.Server{Body: []byte("x\n")}
	if err := ns.Serve("127.0.0.1:18081", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := ns.Run(netns.Load{Addr: srv.Addr(), Workers: 1, Requests: n, DialTimeout: time.Second, Deadline: 10 * time.Second})
	if err != nil || res.OK != int64(n) {
		t.Fatalf("load: %+v %v", res, err)
	}
}

// SSHServer is an OpenSSH server started by the test inside ns, with key
// authentication only and a known_hosts of its own.
type SSHServer struct {
	t          *testing.T
	ns         *netns.NS
	dir, cfg   string
	ClientCfg  string
	Cmd        *exec.Cmd
	ListenAddr string
	// exited closes when the running sshd has exited (and was waited for).
	exited <-chan struct{}
}

// StartSSHD runs sshd in ns on a key of its own, stopped when the test
// ends.
func StartSSHD(t *testing.T, ns *netns.NS) *SSHServer {
	t.Helper()
	for _, tool := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (openssh-server, openssh-client)", tool)
		}
	}
	dir := t.TempDir()
	s := &SSHServer{t: t, ns: ns, dir: dir, ListenAddr: "127.0.0.1:2222"}
	keygen := func(path string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	keygen(filepath.Join(dir, "host_key"))
	keygen(filepath.Join(dir, "client_key"))
	pub, _ := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte("[127.0.0.1]:2222 "+string(hostPub)), 0o600)
	s.cfg = filepath.Join(dir, "sshd_config")
	os.WriteFile(s.cfg, []byte(fmt.Sprintf(`Port 2222
ListenAddress 127.0.0.1
HostKey %[1]s/host_key
AuthorizedKeysFile %[1]s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile %[1]s/sshd.pid
`, dir)), 0o600)
	s.ClientCfg = filepath.Join(dir, "ssh_config")
	os.WriteFile(s.ClientCfg, []byte(fmt.Sprintf(`Host 127.0.0.1
  IdentityFile %[1]s/client_key
  UserKnownHostsFile %[1]s/known_hosts
  IdentitiesOnly yes
`, dir)), 0o600)
	os.MkdirAll("/run/sshd", 0o755)
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server's sshd again (after Stop). An sshd that exits
// before it listens fails the test with what it said (a host without
// its privilege separation user, say), not with a wait's timeout.
func (s *SSHServer) Start() {
	logPath := filepath.Join(s.dir, "sshd.log")
	log, err := os.Create(logPath)
	if err != nil {
		s.t.Fatal(err)
	}
	s.Cmd = s.ns.Command("/usr/sbin/sshd", "-D", "-e", "-f", s.cfg)
	s.Cmd.Stderr = log
	err = s.Cmd.Start()
	log.Close()
	if err != nil {
		s.t.Fatalf("sshd: %v", err)
	}
	exited := make(chan struct{})
	s.exited = exited
	go func() { s.Cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(20 * time.Second) // a loaded machine's start; an exit ends the wait at once
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			said, _ := os.ReadFile(logPath)
			s.t.Fatalf("sshd exited before it listened (%v): %s", s.Cmd.ProcessState, said)
		default:
		}
		if out, _ := s.ns.Output("ss", "-Hltn", "sport = :2222"); strings.Contains(out, "2222") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	said, _ := os.ReadFile(logPath)
	s.t.Fatalf("sshd did not start listening: %s", said)
}

// Stop kills the listener and every session it started (its
// descendants, by PID: no other sshd's session is touched).
func (s *SSHServer) Stop() {
	if s.Cmd != nil && s.Cmd.Process != nil {
		KillTree(s.Cmd.Process.Pid)
		<-s.exited
	}
}

// FloodService sends one datagram from each of flows source ports
// (1024-65535 of each of from in turn) to the Service at to, a socket
// each: more flows to one endpoint than a masquerade has source ports.
func FloodService(t *testing.T, ns *netns.NS, to netip.AddrPort, flows int, from ...netip.Addr) {
	t.Helper()
	dst := &unix.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()}
	if err := ns.Do(func() error {
		for _, a := range from {
			for port := 1024; port <= 65535 && flows > 0; port, flows = port+1, flows-1 {
				fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					return err
				}
				if unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: a.As4()}) == nil {
					unix.Sendto(fd, []byte{0}, 0, dst)
				}
				unix.Close(fd)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// StartNginx runs nginx in ns until the test ends, with everything it
// writes under dir: http's own lines, then one server of server's.
func StartNginx(t *testing.T, ns *netns.NS, dir, http, server string) {
	t.Helper()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, `daemon off;
worker_processes 2;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
	%[2]s
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server { %[3]s }
}
`, dir, http, server), 0o644); err != nil {
		t.Fatal(err)
	}
	nstest.StartGroup(t, ns.Command("nginx", "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf), nil)
}

// StartIn starts cmd as a process of the cgroup cg (cloned into it) and
// kills it when the test ends.
func StartIn(t *testing.T, cg *os.File, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
	StartUntilEnd(t, cmd)
}

// holderPy listens on 127.0.0.1:PORT and holds up to N connections to
// itself open, established, as many as the table lets in; it prints how
// many, then, with "retry", keeps opening new ones (each SYN the full
// table drops).
const holderPy = `import socket, sys, time
port, n, retry = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "retry"
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(1024)
held = []
while len(held) < 2 * n:
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=1)
    except OSError:
        break
    held += [c, srv.accept()[0]]
print(len(held) // 2, flush=True)
while True:
    if retry:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        except OSError:
            pass
    else:
        time.sleep(1)
`

// HoldConnections runs holderPy in ns and returns once it holds its connections.
func HoldConnections(t *testing.T, ns *netns.NS, port, n int, retry bool) int {
	t.Helper()
	mode := "hold"
	if retry {
		mode = "retry"
	}
	cmd := ns.Command("python3", "-c", holderPy, fmt.Sprint(port), fmt.Sprint(n), mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	StartDaemon(t, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the holder said nothing: %v", err)
	}
	var held int
	fmt.Sscan(line, &held)
	return held
}

// ChurnScript opens a new connection per request to an address at a
// paced rate (a thread per connection, so a dropped SYN does not slow
// the pace) for a duration, then prints how many it began and over how
// many seconds.
const ChurnScript = `import socket, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
rate, secs = float(sys.argv[2]), float(sys.argv[3])
def one():
    try:
        c = socket.create_connection((host, int(port)), timeout=3)
        c.sendall(b"GET\n"); c.recv(100); c.close()
    except OSError:
        pass
start = time.monotonic(); n = 0
print("started", flush=True)
while time.monotonic() - start < secs:
    threading.Thread(target=one, daemon=True).start(); n += 1
    time.sleep(max(0, start + n / rate - time.monotonic()))
print(n, time.monotonic() - start, flush=True)
time.sleep(600)
`

// PythonIn starts a python3 script with args in ns, inside the cgroup
// cg, and returns it with its stdout.
func PythonIn(t *testing.T, ns *netns.NS, cg *os.File, script string, args ...string) (*bufio.Reader, int) {
	t.Helper()
	cmd := ns.Command("python3", append([]string{"-c", script}, args...)...)
	out, _ := cmd.StdoutPipe()
	StartIn(t, cg, cmd)
	r := bufio.NewReader(out)
	if l, err := r.ReadString('\n'); err != nil {
		t.Fatalf("client: %q, %v", l, err)
	}
	return r, cmd.Process.Pid
}
