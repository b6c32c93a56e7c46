package sources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
)

// pidNS is a process's network namespace as a walk saw it, and whether
// the process runs in a user namespace other than tablefull's (only
// there can an unprivileged user make a network namespace).
type pidNS struct {
	net    uint64
	userNS bool
}

// walk finds one process per namespace and the ip netns names. Over the
// cap (n.max) the namespaces kept are the bind-mounted ones (ip netns,
// a CNI's), then those made in tablefull's own user namespace (by root:
// pods, containers), then those users made in their own, each group
// those near the cap or dropping at the last read first: no number of
// namespaces a user makes pushes out one root made; the note says how
// many were not read.
func (n *Namespaces) walk(now time.Time) {
	n.walked, n.stale = now, false
	n.self, _ = netnsInode(filepath.Join(n.proc, "self", "ns", "net"))
	selfUser, _ := os.Readlink(filepath.Join(n.proc, "self", "ns", "user"))
	n.mounts = netnsMounts(filepath.Join(n.proc, "self", "mountinfo"))
	pids := map[int]pidNS{}
	first := map[uint64]int{} // namespace → the first process seen in it
	var rootMade, userMade []uint64
	denied := 0
	entries, _ := os.ReadDir(n.proc)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, seen := n.pids[pid] // a process seen before keeps its namespace: no readlink again
		if !seen {
			p.net, err = netnsInode(filepath.Join(n.proc, e.Name(), "ns", "net"))
			switch {
			case errors.Is(err, fs.ErrPermission):
				denied++
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
		pids[pid] = p
		if _, dup := first[p.net]; p.net == 0 || p.net == n.self || dup {
			continue
		}
		first[p.net] = pid
		if _, mounted := n.mounts[p.net]; mounted {
			continue // kept below, named by its mount
		}
		if p.userNS {
			userMade = append(userMade, p.net)
		} else {
			rootMade = append(rootMade, p.net)
		}
	}
	found := map[uint64]*nsProc{}
	keep := func(ino uint64, pid int) {
		if len(found) >= n.max || found[ino] != nil {
			return
		}
		if old := n.known[ino]; old != nil && old.pid == pid && (pid != 0 || old.netnsPath == n.mounts[ino].path) { // the same namespace, read through the same process or mount: its state goes on
			found[ino] = old
			return
		}
		if pid == 0 {
			m := n.mounts[ino]
			found[ino] = &nsProc{netnsPath: m.path, name: m.name, kind: "netns"}
			return
		}
		p := &nsProc{pid: pid}
		p.name, p.kind = n.nameOf(ino, pid)
		found[ino] = p
	}
	for ino := range n.mounts { // a mounted one through a process in it, else its mount
		if ino != n.self {
			keep(ino, first[ino])
		}
	}
	matters := func(inos []uint64) { // near the cap or dropping at the last read: kept first
		sort.SliceStable(inos, func(i, j int) bool { return n.pressed(inos[i]) && !n.pressed(inos[j]) })
	}
	matters(rootMade)
	matters(userMade)
	for _, ino := range append(rootMade, userMade...) {
		keep(ino, first[ino])
	}
	n.pids = pids
	n.known, n.note, n.unread = found, "", 0
	if over := len(n.mounts) + len(rootMade) + len(userMade) - len(found); over > 0 && len(found) >= n.max {
		n.unread = over
		n.note = fmt.Sprintf("%s namespaces not read: over the cap of %s (users' own namespaces are left out first)", model.Int(uint64(over)), model.Int(uint64(n.max)))
	}
	switch {
	case denied == 1 && n.root:
		n.note = joinNote(n.note, "1 process unreadable even as root: a namespace only it is in is missed")
	case denied > 0 && n.root:
		n.note = joinNote(n.note, fmt.Sprintf("%d processes unreadable even as root: a namespace only they are in is missed", denied))
	case denied > 0:
		n.note = joinNote(n.note, "other users' processes not readable: their namespaces need root")
	}
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

// kernelThread reports whether the process at dir is a kernel thread
// (an empty command line): it belongs to no namespace anyone made.
func kernelThread(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "cmdline"))
	if err != nil {
		return false
	}
	defer f.Close()
	var one [1]byte // whether it is empty: one byte, whatever argv a user gave
	n, err := f.Read(one[:])
	return n == 0 && (err == nil || errors.Is(err, io.EOF))
}

// nameOf names a namespace: its ip netns name (of its bind mount), else the pod, container or
// unit of the process's cgroup, else the process's command.
func (n *Namespaces) nameOf(ino uint64, pid int) (string, string) {
	if m, ok := n.mounts[ino]; ok {
		return m.name, "netns"
	}
	dir := filepath.Join(n.proc, strconv.Itoa(pid))
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup")); err == nil {
		if name, kind := CgroupOwner(string(b)); kind != "" {
			return name, kind
		}
	}
	comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
	return strings.TrimSpace(string(comm)), "process"
}
