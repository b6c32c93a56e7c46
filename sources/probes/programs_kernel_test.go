package probes

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// bpfFDs counts this process's eBPF links and programs.
func bpfFDs(t *testing.T) int {
	fds, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink("/proc/self/fd/" + fd.Name()); err == nil && (l == "anon_inode:bpf_link" || l == "anon_inode:bpf-prog") {
			n++
		}
	}
	return n
}

// TestWhoLoads: the probes load and attach as root, and Close detaches
// and unloads every one. Where nf_conntrack_in cannot be traced (this
// VM's kernel has no function tracing; a test names a function no kernel
// has), the rest still load and the limit says the drops are not split.
func TestWhoLoads(t *testing.T) {
	kernelfstest.Need(t, "a namespace")
	for _, target := range []string{refusedTarget, "tablefull_no_such_function"} {
		t.Run(target, func(t *testing.T) {
			defer func(was string) { refusedTarget = was }(refusedTarget)
			refusedTarget = target
			before := bpfFDs(t)
			w, err := Load("/proc", "/proc/self/ns/net")
			if err != nil {
				t.Fatal(err)
			}
			r := w.Read()
			want := 6 // four cgroup hooks, the socket states, the drops
			if w.split {
				want++
			}
			if len(w.links) != want || bpfFDs(t) < before+want || strings.Contains(r.Limit, "TCP only") ||
				w.split == strings.Contains(r.Limit, "a rule's included") || w.split != r.DropsSplit {
				t.Errorf("%d probes attached (%d eBPF fds), split %v, limit %q", len(w.links), bpfFDs(t)-before, w.split, r.Limit)
			}
			if target != "nf_conntrack_in" && w.split {
				t.Errorf("split with %s traced", target)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if n := bpfFDs(t); n != before {
				t.Errorf("%d eBPF links or programs left after Close", n-before)
			}
		})
	}
}

// udpScript sends argv[2] datagrams to an address, each from a socket of
// its own (a new source port: a new conntrack entry each, as a
// resolver's lookups), then argv[3] more from one socket (one flow).
const udpScript = `import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"q", (host, int(port)))
    s.close()
one = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[3])):
    one.sendto(b"q", (host, int(port)))
print("sent", flush=True)
time.sleep(600)
`

// TestWhoCountsUDP: a client in a unit of its own, in a namespace, sends
// 200 datagrams from 200 sockets and 50 from one: the probes count 201
// new UDP flows, named by its process and unit. A datagram another
// namespace sends (the host's, here) is counted too, named by that
// namespace, this test's process as detail: on a node, pods' flows fill
// the node's table.
func TestWhoCountsUDP(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3")
	}
	ns, _ := nstest.Tracked(t)
	var pc net.PacketConn
	if err := ns.Do(func() (err error) { pc, err = net.ListenPacket("udp", "127.0.0.1:0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	w, err := Load("/proc", ns.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if strings.Contains(w.limit, "TCP only") {
		t.Fatalf("the UDP hooks are off: %s", w.limit)
	}
	tag := strconv.Itoa(os.Getpid())
	unit := "tablefull-test-dns-" + tag + ".service"
	cmd := ns.Command("python3", "-c", udpScript, pc.LocalAddr().String(), "200", "50")
	out, _ := cmd.StdoutPipe()
	nstest.StartIn(t, nstest.Cgroup(t, "tablefull-test-"+tag+".slice/"+unit), cmd)
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if c, err := net.Dial("udp", "127.0.0.1:9"); err == nil { // the host's: not counted
		c.Write([]byte("x"))
		c.Close()
	}
	r := w.Read()
	var found, host bool
	want := "python3 (pid " + strconv.Itoa(cmd.Process.Pid) + ", " + unit + ")"
	for _, c := range r.Conns {
		switch c.DestText() {
		case pc.LocalAddr().String() + " udp":
			found = true
			if c.Owner.String() != want || c.Opened != 201 {
				t.Errorf("counted %s: %d × %s, want %s: 201", c.Owner, c.Opened, c.DestText(), want)
			}
		case "127.0.0.1:9 udp":
			host = true
			if c.Owner.Kind != "netns" || c.Owner.PID != os.Getpid() || c.Owner.Group == "" {
				t.Errorf("the host's datagram is named %+v, want its namespace with this process as detail", c.Owner)
			}
		}
	}
	if !found || !host {
		t.Errorf("flows %+v: want the namespace's and the host's", r.Conns)
	}
}
