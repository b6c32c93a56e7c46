package incidents

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
)

// holdScript holds sockets in a process of its own (a process may hold
// fewer than a test needs): "serve ADDR N" accepts N connections on ADDR
// (SO_REUSEPORT, so several can share it: each takes what comes until
// 3 s pass without one), "dial ADDR N" makes N; each prints "up" once it
// holds them, and then waits for stdin to close.
const holdScript = `import resource, socket, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
mode, host, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
held = []
if mode == "serve":
    ln = socket.socket()
    ln.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    ln.bind((host, port))
    ln.listen(4096)
    print("listening", flush=True)
    while len(held) < n:
        try:
            held.append(ln.accept()[0])
        except socket.timeout:
            break  # the rest went to another listener of the port
        ln.settimeout(3)
else:
    for _ in range(n):
        held.append(socket.create_connection((host, port), timeout=10))
print("up", flush=True)
sys.stdin.read()
`

// holder starts holdScript in ns and waits until it prints want.
func holder(t *testing.T, ns *netns.NS, want string, args ...string) {
	t.Helper()
	cmd := ns.Command("python3", append([]string{"-c", holdScript}, args...)...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if sc.Text() == want {
			return
		}
	}
	t.Fatalf("%v ended before %q", args, want)
}

// TestPortsInboundAreNotPortUse: a server holding 30,000 inbound
// connections on one port (its established count far past 90 % of its
// 28,232 local ports) reads no port trouble: an accepted connection
// takes no local port. Its sockets are read by destination and counted
// inbound. The sockets are held by processes of their own, 15,000 each.
func TestPortsInboundAreNotPortUse(t *testing.T) {
	clitest.NeedKernel(t, "python3")
	const n, each = 30000, 15000
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r); r.Max < each+100 {
		t.Skipf("a process may hold %d files, not %d", r.Max, each+100)
	}
	srv, cli := clitest.VethPair(t)
	clitest.SetNS(t, srv, "net.core.somaxconn", 65535)
	clitest.SetNS(t, srv, "net.ipv4.tcp_max_syn_backlog", 65535)
	if out, err := cli.Output("sysctl", "-qw", "net.ipv4.ip_local_port_range=1024 65000"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	done := make(chan struct{}, 2)
	for range n / each {
		go func() {
			defer func() { done <- struct{}{} }()
			holder(t, srv, "up", "serve", "10.77.0.1", "18099", strconv.Itoa(each))
		}()
	}
	time.Sleep(time.Second) // both listeners bound before the first connect
	for range n / each {
		holder(t, cli, "up", "dial", "10.77.0.1", "18099", strconv.Itoa(each))
	}
	for range n / each {
		<-done
	}
	feed := clitest.StartClassFeed(t, srv, 500*time.Millisecond)
	f := feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool { return f.Sample.Ports != nil })
	tcp, u := f.Sample.TCP, f.Sample.Ports
	if old := float64(tcp.TimeWait+tcp.Established) >= diagnose.PortExhaustFrac*float64(tcp.PortRange[1]-tcp.PortRange[0]+1); !old {
		t.Errorf("established %d: the old host-wide rule would not have fired, the test proves nothing", tcp.Established)
	}
	if hasKind(f, verdict.PortExhaustion) || u.Inbound < n || u.Outbound > 10 {
		t.Errorf("30,000 inbound connections: %v, ports %+v", f.Verdicts, u)
	}
}

// TestPortsRunOutTowardsOneDestination: a client whose connects to one
// blackholed destination take its 1,000 local ports (each in SYN_SENT,
// which the host's established and TIME_WAIT totals never count) reads
// PORT EXHAUSTION naming that destination, its next connect failing
// with EADDRNOTAVAIL.
func TestPortsRunOutTowardsOneDestination(t *testing.T) {
	clitest.NeedKernel(t)
	_, cli := clitest.VethPair(t)
	if out, err := cli.Output("sysctl", "-qw", "net.ipv4.ip_local_port_range=40000 40999"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if err := cli.Nft(`table ip tft-blackhole {
	chain out { type filter hook output priority 0; ip daddr 10.77.0.99 tcp dport 80 drop; }
}`); err != nil {
		t.Fatal(err)
	}
	var fds []int
	t.Cleanup(func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	})
	var last error
	if err := cli.Do(func() error {
		for range 1001 {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
			if err != nil {
				return err
			}
			fds = append(fds, fd)
			last = unix.Connect(fd, &unix.SockaddrInet4{Port: 80, Addr: [4]byte{10, 77, 0, 99}})
			if last != nil && !errors.Is(last, syscall.EINPROGRESS) {
				break
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(last, syscall.EADDRNOTAVAIL) {
		t.Fatalf("the 1,001st connect: %v, want EADDRNOTAVAIL: the ports did not run out", last)
	}
	feed := clitest.StartClassFeed(t, cli, 500*time.Millisecond)
	f := feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool { return hasKind(f, verdict.PortExhaustion) })
	tcp := f.Sample.TCP
	if float64(tcp.TimeWait+tcp.Established) >= diagnose.PortExhaustFrac*1000 {
		t.Errorf("the host-wide totals (%d TIME_WAIT, %d established) reach the old line: the test proves nothing", tcp.TimeWait, tcp.Established)
	}
	for _, v := range f.Verdicts {
		if v.Kind == verdict.PortExhaustion && !strings.Contains(v.Text(), "to 10.77.0.99:80") {
			t.Errorf("PORT EXHAUSTION does not name the destination: %s", v.Text())
		}
	}
	t.Logf("%s", f.Verdict())
}
