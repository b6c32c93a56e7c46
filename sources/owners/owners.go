package owners

import (
	"net/netip"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// ownedSocket is one socket of the dump, as the join needs it.
type ownedSocket struct {
	key    uint64 // socketKey of its protocol and ends
	cgroup uint64
	remote netip.AddrPort
	inode  uint32
	n      uint32 // entries joined to it
	// role is how its entries were joined: opened by it, accepted by it
	// (the answering end of a connection), or served by it (an
	// unconnected UDP socket answering requests whose own sockets are
	// gone: a resolver's lookups to dnsmasq).
	role role
	// port is its local port, said of the entries it served.
	port uint16
}

// role is how a socket's entries were joined to it.
type role uint8

// The roles, as the exporter's role label names them.
const (
	roleOpened role = iota
	roleAccepted
	roleServed
)

// SocketIndex joins conntrack entries to the sockets of their namespace
// by tuple. It is a sorted slice, searched in O(log n): no map of every
// socket.
type SocketIndex struct {
	socks []ownedSocket
	// unowned counts the entries no process's socket holds, by class.
	unowned model.ClassCounts
	// cgroups: the dump carried cgroup ids (kernel 5.8+); held: it listed
	// sockets a process holds (only those carry one).
	cgroups, held bool
	// away names the host's other namespaces' addresses (ownersInOtherNetns,
	// read under AwayProc at the first entry that needs it: a census
	// whose entries all have sockets here never looks); fromAway counts
	// the entries they opened, by source and peer.
	AwayProc string
	away     map[netip.Addr]model.Owner
	fromAway map[netip.Addr]map[netip.AddrPort]int
}

// socketKey hashes a protocol and a socket's two ends (FNV-1a over the
// bytes): an unconnected end is the zero AddrPort.
func socketKey(proto uint8, local, remote netip.AddrPort) uint64 {
	h := uint64(14695981039346656037)
	mix := func(b byte) { h = (h ^ uint64(b)) * 1099511628211 }
	mix(proto)
	for _, ap := range [2]netip.AddrPort{local, remote} {
		a := ap.Addr().As16()
		if !ap.Addr().IsValid() || ap.Addr().IsUnspecified() {
			a = [16]byte{}
		}
		for _, b := range a {
			mix(b)
		}
		mix(byte(ap.Port() >> 8))
		mix(byte(ap.Port()))
	}
	return h
}

// DumpSockets reads every TCP and UDP socket of the namespace into an
// index.
func DumpSockets(d SocketDump) (*SocketIndex, error) {
	ix := &SocketIndex{}
	for _, proto := range []uint8{unix.IPPROTO_TCP, unix.IPPROTO_UDP} {
		err := d.Each(proto, allStates, func(r SocketRow) {
			if r.State == tcpListen && proto == unix.IPPROTO_TCP {
				return // a listener holds no entry; its accepted sockets do
			}
			ix.cgroups = ix.cgroups || r.Cgroup != 0
			ix.held = ix.held || r.Inode != 0
			ix.socks = append(ix.socks, ownedSocket{key: socketKey(proto, r.Local, r.Remote),
				cgroup: r.Cgroup, remote: r.Remote, inode: r.Inode, port: r.Local.Port()})
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(ix.socks, func(i, j int) bool { return ix.socks[i].key < ix.socks[j].key })
	return ix, nil
}

// find returns the socket with key, or nil.
func (ix *SocketIndex) find(key uint64) *ownedSocket {
	i := sort.Search(len(ix.socks), func(i int) bool { return ix.socks[i].key >= key })
	if i < len(ix.socks) && ix.socks[i].key == key {
		return &ix.socks[i]
	}
	return nil
}

// add joins one entry to its socket: the opener's first (a loopback
// connection is one entry, counted once, for its opener), then the
// answering end; a UDP socket that is not connected matches by its port.
func (ix *SocketIndex) Add(f model.Flow) {
	src, dst := netip.AddrPortFrom(f.Src, f.SrcPort), netip.AddrPortFrom(f.Dst, f.DstPort)
	s := ix.find(socketKey(f.Proto, src, dst))
	if s == nil && f.Proto == unix.IPPROTO_UDP {
		s = ix.unconnected(src)
	}
	joined := roleOpened
	if s == nil {
		joined = roleAccepted
		if s = ix.find(socketKey(f.Proto, dst, src)); s == nil && f.Proto == unix.IPPROTO_UDP {
			s, joined = ix.unconnected(dst), roleServed // the requester's socket is gone
		}
	}
	if s == nil && ix.countAway(f) {
		return
	}
	if s == nil || s.inode == 0 {
		ix.unowned[model.ClassOf(f)]++
		return
	}
	s.n++
	s.role = joined
}

// countAway counts an entry with no socket here that another namespace
// of the host opened (its source is one of that namespace's addresses).
func (ix *SocketIndex) countAway(f model.Flow) bool {
	if ix.away == nil && ix.AwayProc != "" {
		if ix.away = ownersInOtherNetns(ix.AwayProc); ix.away == nil {
			ix.away = map[netip.Addr]model.Owner{}
		}
	}
	if _, ok := ix.away[f.Src]; !ok {
		return false
	}
	if ix.fromAway == nil {
		ix.fromAway = map[netip.Addr]map[netip.AddrPort]int{}
	}
	peers := ix.fromAway[f.Src]
	if peers == nil {
		peers = map[netip.AddrPort]int{}
		ix.fromAway[f.Src] = peers
	}
	dst := netip.AddrPortFrom(f.Dst, f.DstPort)
	if _, ok := peers[dst]; ok || len(peers) < tally.SketchSize {
		peers[dst]++
	} else {
		peers[netip.AddrPort{}]++ // beyond the bound: counted, its peer not kept
	}
	return true
}

// unconnected finds a UDP socket bound to local (or to its port on any
// address) that has no peer.
func (ix *SocketIndex) unconnected(local netip.AddrPort) *ownedSocket {
	if s := ix.find(socketKey(unix.IPPROTO_UDP, local, netip.AddrPort{})); s != nil {
		return s
	}
	return ix.find(socketKey(unix.IPPROTO_UDP, netip.AddrPortFrom(netip.Addr{}, local.Port()), netip.AddrPort{}))
}

// Trees are where owners are looked up: processes and the cgroup v2
// mount.
type Trees struct {
	// Proc is the process root; Cgroup2 the cgroup v2 mount ("" when none).
	Proc, Cgroup2 string
}

// NewRoots finds the cgroup v2 mount of the process root proc: in
// this process's mount table, or else in init's, through its root (ip
// netns exec mounts a sysfs of its own, without the cgroup mounts).
func NewRoots(proc string) Trees {
	if m := Cgroup2Mount(filepath.Join(proc, "self", "mountinfo")); m != "" {
		return Trees{Proc: proc, Cgroup2: m}
	}
	if m := Cgroup2Mount(filepath.Join(proc, "1", "mountinfo")); m != "" {
		through := filepath.Join(proc, "1", "root", m)
		if _, err := os.Stat(filepath.Join(through, "cgroup.procs")); err == nil {
			return Trees{Proc: proc, Cgroup2: through}
		}
	}
	return Trees{Proc: proc} // processes are found by their fds, named by /proc/PID/cgroup
}
