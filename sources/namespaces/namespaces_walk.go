package namespaces

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/owners"
)

// pidNS is a process's network namespace as a walk saw it, and whether
// the process runs in a user namespace other than tablefull's (only
// there can an unprivileged user make a network namespace).
type pidNS struct {
	net    uint64
	userNS bool
}

// MountsEvery is how often a walk reads the mount table again for the
// namespaces ip netns (or a CNI) bind-mounted, where the table cannot be
// watched (kernelfs.MountWatch): a thousand of them make it long, and one
// no process is in is empty until traffic is routed to it. A namespace
// gone is read again at once; a watched table is read when it changed.
const MountsEvery = time.Minute

// walk finds one process per namespace and the ip netns names. Over the
// cap (n.max) the namespaces kept are the bind-mounted ones (ip netns,
// a CNI's), then those made in tablefull's own user namespace (by root:
// pods, containers), then those users made in their own, each group
// those near the cap or dropping at the last read first: no number of
// namespaces a user makes pushes out one root made; the note says how
// many were not read.
//
// A walk that would find what the last one found is skipped: no mount
// changed, no process was made since (the kernel's last pid is the same),
// none was refused, no namespace went away and none was left over the
// cap. Listing /proc was most of an idle exporter's walk.
func (n *Namespaces) walk(now time.Time) {
	mountsNew := n.mountsChanged(now)
	if mountsNew {
		n.mounts, n.mountsRead = kernelfs.NetnsMounts(filepath.Join(n.proc, "self", "mountinfo")), now
	}
	newest := lastPID(n.proc)
	if !mountsNew && !n.stale && n.known != nil && newest != "" && newest == n.lastPID && !n.refused && n.unread == 0 {
		n.walked = now
		return
	}
	n.walked, n.stale = now, false
	n.self, _ = kernelfs.NetnsInode(filepath.Join(n.proc, "self", "ns", "net"))
	sc := n.scanProcesses()
	n.lastPID, n.refused = newest, sc.denied > 0
	found := make(map[uint64]*nsProc, len(n.known))
	for ino := range n.mounts { // a mounted one through a process in it, else its mount
		if ino != n.self {
			n.keep(found, ino, sc.first[ino])
		}
	}
	pressedFirst := func(inos []uint64) { // near the cap or dropping at the last read: kept first
		sort.SliceStable(inos, func(i, j int) bool { return n.pressed(inos[i]) && !n.pressed(inos[j]) })
	}
	pressedFirst(sc.rootMade)
	pressedFirst(sc.userMade)
	for _, ino := range append(sc.rootMade, sc.userMade...) {
		n.keep(found, ino, sc.first[ino])
	}
	n.pids = sc.pids
	n.known, n.note, n.unread, n.denied = found, "", 0, sc.denied > 0 && !n.root
	if over := len(n.mounts) + len(sc.rootMade) + len(sc.userMade) - len(found); over > 0 && len(found) >= n.max {
		n.unread = over
		n.note = fmt.Sprintf("%s namespaces not read: over the cap of %s (users' own namespaces are left out first)", units.Int(uint64(over)), units.Int(uint64(n.max)))
	}
	switch {
	case sc.denied == 1 && n.root:
		n.note = joinNote(n.note, "1 process unreadable even as root: a namespace only it is in is missed")
	case sc.denied > 0 && n.root:
		n.note = joinNote(n.note, fmt.Sprintf("%d processes unreadable even as root: a namespace only they are in is missed", sc.denied))
	case sc.denied > 0:
		n.note = joinNote(n.note, "other users' processes not readable: their namespaces need CAP_SYS_PTRACE")
	}
}

// mountsChanged reports whether the mount table is to be read again: not
// read yet, a namespace read went away, or it changed (MountWatch), else
// MountsEvery since it was read. The watch starts before the first read,
// so a change during that read is seen by the next walk.
func (n *Namespaces) mountsChanged(now time.Time) bool {
	if n.mounts == nil && n.mountWatch == nil {
		n.mountWatch = kernelfs.WatchMounts(filepath.Join(n.proc, "self", "mountinfo"))
	}
	switch {
	case n.mounts == nil || n.stale:
		if n.mountWatch != nil {
			n.mountWatch.Changed() // read now: what changed before is in this read
		}
		return true
	case n.mountWatch != nil:
		return n.mountWatch.Changed()
	}
	return now.Sub(n.mountsRead) >= MountsEvery
}

// lastPID is the newest process id the kernel gave in this pid
// namespace (loadavg's fifth field), "" when unreadable: while it is the
// same, no process (nor thread) was made.
func lastPID(proc string) string {
	b, err := os.ReadFile(filepath.Join(proc, "loadavg"))
	if f := bytes.Fields(b); err == nil && len(f) >= 5 && len(f[4]) <= 20 {
		return string(f[4])
	}
	return ""
}

// processScan is what one pass over /proc found: each process's
// namespace, the first process seen in each namespace, the namespaces
// not bind mounted (made by root, or in a user namespace of their own),
// and how many processes could not be read.
type processScan struct {
	pids               map[int]pidNS
	first              map[uint64]int
	rootMade, userMade []uint64
	denied             int
}

// scanProcesses reads every process's network namespace; a process seen
// before keeps its namespace, with no readlink again.
func (n *Namespaces) scanProcesses() processScan {
	selfUser, _ := os.Readlink(filepath.Join(n.proc, "self", "ns", "user"))
	sc := processScan{pids: map[int]pidNS{}, first: map[uint64]int{}}
	entries, _ := os.ReadDir(n.proc)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, seen := n.pids[pid]
		if !seen {
			p.net, err = kernelfs.NetnsInode(filepath.Join(n.proc, e.Name(), "ns", "net"))
			switch {
			case errors.Is(err, fs.ErrPermission):
				sc.denied++
				continue // asked again next walk: permissions can change
			case err != nil:
				continue
			case kernelThread(filepath.Join(n.proc, e.Name())):
				p.net = 0 // remembered as nothing to read
			}
			if user, err := os.Readlink(filepath.Join(n.proc, e.Name(), "ns", "user")); err == nil && selfUser != "" {
				p.userNS = user != selfUser
			}
		}
		sc.pids[pid] = p
		if _, dup := sc.first[p.net]; p.net == 0 || p.net == n.self || dup {
			continue
		}
		sc.first[p.net] = pid
		if _, mounted := n.mounts[p.net]; mounted {
			continue // kept by the walk, named by its mount
		}
		if p.userNS {
			sc.userMade = append(sc.userMade, p.net)
		} else {
			sc.rootMade = append(sc.rootMade, p.net)
		}
	}
	return sc
}

// keep adds namespace ino, read through process pid (0: through its
// mount), to found, up to the cap. The same namespace read through the
// same process or mount keeps its state.
func (n *Namespaces) keep(found map[uint64]*nsProc, ino uint64, pid int) {
	if len(found) >= n.max || found[ino] != nil {
		return
	}
	if old := n.known[ino]; old != nil && old.pid == pid && (pid != 0 || old.netnsPath == n.mounts[ino].Path) {
		found[ino] = old
		return
	}
	if pid == 0 {
		m := n.mounts[ino]
		found[ino] = &nsProc{netnsPath: m.Path, name: safe.Text(m.Name, 64), kind: "netns"}
		return
	}
	name, kind := n.nameOf(ino, pid)
	found[ino] = &nsProc{pid: pid, name: safe.Text(name, 64), kind: kind}
}

// pressed reports whether namespace ino was near the cap or dropping at
// its last read.
func (n *Namespaces) pressed(ino uint64) bool {
	p := n.known[ino]
	return p != nil && (p.hot || p.dropping)
}

// joinNote adds b to note a.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// kernelThread reports whether the process at dir is a kernel thread: it
// belongs to no namespace anyone made. The kernel's flag says so
// (PF_KTHREAD in /proc/PID/stat's flags), never the command line, which
// any process can empty for itself (prctl PR_SET_MM_MAP needs no
// privilege) to hide its namespace. A stat that cannot be read is not a
// kernel thread's.
func kernelThread(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "stat"))
	if err != nil {
		return false
	}
	defer f.Close()
	var buf [256]byte // pid, (comm: 16 bytes at most), and eight fields to the flags
	n, _ := io.ReadFull(f, buf[:])
	flags, ok := statFlags(buf[:n])
	return ok && flags&pfKthread != 0
}

// pfKthread is the kernel's PF_KTHREAD task flag.
const pfKthread = 0x00200000

// statFlags is the flags field of a /proc/PID/stat line: the seventh
// field after the command name, whose parentheses may hold any bytes, so
// counting starts after the last ')'.
func statFlags(b []byte) (uint64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 7 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(fields[6]), 10, 64)
	return v, err == nil
}

// nameOf names a namespace the one way (owners.NetnsName).
func (n *Namespaces) nameOf(ino uint64, pid int) (string, string) {
	return owners.NetnsName(n.proc, pid, ino, n.mounts)
}
