package owners

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// fakeOwnerHost makes a process root with processes holding sockets
// (fd links "socket:[N]") and a cgroup v2 tree whose directories' inodes
// are the cgroup ids.
type fakeOwnerHost struct {
	t          *testing.T
	proc, cg   string
	cgroupByID map[string]uint64
}

func newFakeOwnerHost(t *testing.T) *fakeOwnerHost {
	d := t.TempDir()
	h := &fakeOwnerHost{t: t, proc: filepath.Join(d, "proc"), cg: filepath.Join(d, "cgroup"), cgroupByID: map[string]uint64{}}
	os.MkdirAll(h.proc, 0o755)
	os.MkdirAll(h.cg, 0o755)
	return h
}

// cgroup makes the cgroup at path holding pids and returns its id.
func (h *fakeOwnerHost) cgroup(path string, pids ...int) uint64 {
	dir := filepath.Join(h.cg, path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	procs := ""
	for _, p := range pids {
		procs += strconv.Itoa(p) + "\n"
	}
	os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(procs), 0o644)
	info, err := os.Stat(dir)
	if err != nil {
		h.t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// process makes pid named comm, in cgroup path, holding socket inodes.
func (h *fakeOwnerHost) process(pid int, comm, path string, inodes ...uint32) {
	dir := filepath.Join(h.proc, strconv.Itoa(pid))
	os.MkdirAll(filepath.Join(dir, "fd"), 0o755)
	os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "cgroup"), []byte("0::"+path+"\n"), 0o644)
	for i, ino := range inodes {
		os.Symlink("socket:["+strconv.Itoa(int(ino))+"]", filepath.Join(dir, "fd", strconv.Itoa(i+3)))
	}
	os.Symlink("/dev/null", filepath.Join(dir, "fd", "0"))
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func tcpFlow(src, dst string, state int) model.Flow {
	s, d := ap(src), ap(dst)
	return model.Flow{Proto: 6, Src: s.Addr(), SrcPort: s.Port(), Dst: d.Addr(), DstPort: d.Port(), TCPState: state}
}

// TestOwnersJoinEntriesToProcesses: entries join the socket of their
// opener (a loopback connection, with two sockets, counts once), an
// accepted one its server's, an unconnected UDP socket by its port; the
// owners are named by process and unit or pod; entries whose socket
// closed are unowned, by class.
func TestOwnersJoinEntriesToProcesses(t *testing.T) {
	h := newFakeOwnerHost(t)
	churn := h.cgroup("/system.slice/churn.service", 100)
	pod := h.cgroup("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f2a_1b.slice/cri-containerd-abc.scope", 200)
	web := h.cgroup("/system.slice/nginx.service", 300)
	dns := h.cgroup("/system.slice/dnsmasq.service", 400)
	h.process(100, "duckdb", "/system.slice/churn.service", 11, 12, 13)
	h.process(200, "resolver", "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f2a_1b.slice/cri-containerd-abc.scope", 21)
	h.process(300, "nginx", "/system.slice/nginx.service", 31, 32, 33)
	h.process(400, "dnsmasq", "/system.slice/dnsmasq.service", 41)

	ix := &SocketIndex{cgroups: true, held: true}
	sock := func(proto uint8, local, remote string, inode uint32, cg uint64) {
		l, r := netip.AddrPort{}, netip.AddrPort{}
		if local != "" {
			l = ap(local)
		}
		if remote != "" {
			r = ap(remote)
		}
		ix.socks = append(ix.socks, ownedSocket{key: socketKey(proto, l, r), cgroup: cg, remote: r, inode: inode, port: l.Port()})
	}
	for i, port := range []string{"40001", "40002", "40003"} {
		sock(6, "10.0.0.1:"+port, "10.5.5.14:3900", uint32(11+i), churn) // the client's
	}
	sock(17, "0.0.0.0:5353", "", 21, pod)               // an unconnected UDP socket
	sock(6, "127.0.0.1:80", "127.0.0.1:50000", 31, web) // accepted on loopback
	sock(6, "127.0.0.1:50000", "127.0.0.1:80", 0, web)  // its client, in TIME_WAIT: no inode
	sock(6, "10.0.0.1:80", "192.0.2.9:61000", 32, web)  // accepted from outside
	sock(17, "0.0.0.0:53", "", 41, dns)                 // a DNS server's unconnected socket
	sort.Slice(ix.socks, func(i, j int) bool { return ix.socks[i].key < ix.socks[j].key })

	for _, p := range []string{"40001", "40002", "40003"} {
		ix.Add(tcpFlow("10.0.0.1:"+p, "10.5.5.14:3900", 3))
	}
	for _, dst := range []string{"10.0.0.53:53", "10.0.0.54:53"} {
		d := ap(dst)
		ix.Add(model.Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.1"), SrcPort: 5353, Dst: d.Addr(), DstPort: d.Port(), TCPState: -1})
	}
	for port := range uint16(4) { // lookups whose resolver sockets closed after each answer
		ix.Add(model.Flow{Proto: 17, Src: netip.MustParseAddr("127.0.0.1"), SrcPort: 41000 + port, Dst: netip.MustParseAddr("127.0.0.1"), DstPort: 53, TCPState: -1})
	}
	ix.Add(tcpFlow("127.0.0.1:50000", "127.0.0.1:80", 7))  // the opener's socket is TIME_WAIT: unowned
	ix.Add(tcpFlow("192.0.2.9:61000", "10.0.0.1:80", 3))   // accepted by nginx
	ix.Add(tcpFlow("10.0.0.1:40999", "10.5.5.14:3900", 7)) // its socket long gone

	o := ix.Owners(Trees{Proc: h.proc, Cgroup2: h.cg}, model.OwnersShown)
	want := []string{
		"dnsmasq (pid 400, dnsmasq.service) 4 on udp/53, their sockets gone (4)",
		"duckdb (pid 100, churn.service) 3 → 10.5.5.14:3900 (3)",
		"pod 3f2a-1b (resolver, pid 200) 2 ",
		"nginx (pid 300, nginx.service) 1 accepted ← 192.0.2.9:61000 (1)",
	}
	if len(o.Top) != len(want) {
		t.Fatalf("owners %+v", o.Top)
	}
	for i, c := range o.Top {
		if got := c.Owner.String() + " " + strconv.Itoa(c.N) + " " + c.PeerText(); got != want[i] {
			t.Errorf("owner %d: %q, want %q", i, got, want[i])
		}
	}
	if o.Unowned[model.ClassTCPDone] != 2 || o.Unowned.Total() != 2 {
		t.Errorf("unowned %v, want the 2 closed ones", o.Unowned)
	}
	if o.Note != "" {
		t.Errorf("note %q", o.Note)
	}

	// Without the cgroup mount the processes are found by their fds and
	// named by /proc/PID/cgroup.
	for i := range ix.socks {
		ix.socks[i].n = 0
	}
	ix.Add(tcpFlow("10.0.0.1:40001", "10.5.5.14:3900", 3))
	o = ix.Owners(Trees{Proc: h.proc}, model.OwnersShown)
	if len(o.Top) != 1 || o.Top[0].Owner.String() != "duckdb (pid 100, churn.service)" {
		t.Errorf("without the cgroup mount: %+v", o.Top)
	}
}

// TestOwnersWithoutProcesses: a socket whose process is not found is
// owned by its cgroup alone, and the owners say why when fds could not
// be read.
func TestOwnersWithoutProcesses(t *testing.T) {
	h := newFakeOwnerHost(t)
	cg := h.cgroup("/system.slice/gone.service")
	ix := &SocketIndex{cgroups: true, held: true,
		socks: []ownedSocket{{key: socketKey(6, ap("10.0.0.1:40001"), ap("10.0.0.2:80")), cgroup: cg, inode: 5, remote: ap("10.0.0.2:80")}}}
	ix.Add(tcpFlow("10.0.0.1:40001", "10.0.0.2:80", 3))
	o := ix.Owners(Trees{Proc: h.proc, Cgroup2: h.cg}, model.OwnersShown)
	if len(o.Top) != 1 || o.Top[0].String() != "gone.service" || o.Top[0].PID != 0 {
		t.Errorf("owners %+v", o.Top)
	}
}

// TestLocalAddrs: a namespace's own addresses from fib_trie's LOCAL
// entries and if_inet6, loopback and link-local left out.
func TestLocalAddrs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fib_trie"), []byte(`Main:
  +-- 0.0.0.0/1 2 0 2
     +-- 10.99.0.0/24 2 0 2
           |-- 10.99.0.0
              /24 link UNICAST
           |-- 10.99.0.2
              /32 host LOCAL
        |-- 10.99.0.255
           /32 link BROADCAST
     +-- 127.0.0.0/8 2 0 2
           |-- 127.0.0.1
              /32 host LOCAL
Local:
           |-- 10.99.0.2
              /32 host LOCAL
`), 0o644)
	os.WriteFile(filepath.Join(dir, "if_inet6"), []byte("00000000000000000000000000000001 01 80 10 80       lo\n"+
		"fe800000000000000c2a3bfffe4d5e6f 02 40 20 80     eth0\n"+"20010db8000000000000000000000007 02 40 00 80     eth0\n"), 0o644)
	got := fmt.Sprint(localAddrs(dir))
	if got != "[10.99.0.2 2001:db8::7]" {
		t.Errorf("local addresses %s", got)
	}
}
