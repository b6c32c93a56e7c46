package owners

import (
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// groupKey is one cgroup's entries in one role.
type groupKey struct {
	cgroup uint64
	role   role
}

// ownerKey is one process's entries in one role.
type ownerKey struct {
	pid int
	groupKey
}

// owners names who holds the joined entries: the n cgroups holding most,
// then within them the processes whose sockets they are (found through
// the cgroup's cgroup.procs and each process's fds: what is read grows
// with the owners shown, not with the host). Without cgroup ids every
// process is scanned, at most maxCgroupProcs of them.
func (ix *SocketIndex) Owners(r Trees, n int) model.Owners {
	out := model.Owners{Sockets: len(ix.socks), Unowned: ix.unowned, Top: []model.OwnerCount{}}
	byGroup := map[groupKey]int{}
	for _, s := range ix.socks {
		if s.n > 0 {
			byGroup[groupKey{s.cgroup, s.role}] += int(s.n)
		}
	}
	groups := make([]groupKey, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		if byGroup[groups[i]] != byGroup[groups[j]] {
			return byGroup[groups[i]] > byGroup[groups[j]]
		}
		return groups[i].cgroup < groups[j].cgroup
	})
	groups = groups[:min(n, len(groups))]
	paths := map[uint64]string{}
	for _, g := range groups {
		paths[g.cgroup] = ""
	}
	if ix.cgroups {
		CgroupPaths(r.Cgroup2, paths)
	} else if ix.held {
		out.Note = "the kernel gave no cgroup ids (before 5.8): owners are processes only"
	}
	wanted := map[uint32]int{} // socket inode → pid, 0 until found
	shown := map[groupKey]bool{}
	for _, g := range groups {
		shown[g] = true
	}
	for _, s := range ix.socks {
		if s.n > 0 && shown[groupKey{s.cgroup, s.role}] {
			wanted[s.inode] = 0
		}
	}
	denied, over := findProcesses(r, ix.cgroups, paths, wanted, maxLookupFDs)
	if denied {
		out.Note = "some processes could not be read (their sockets need root to be found): those owners are cgroups only"
	}
	if over {
		if out.Note != "" {
			out.Note += "; "
		}
		out.Note += overBudgetNote
	}
	counts := map[ownerKey]int{}
	peers := map[ownerKey]map[netip.AddrPort]int{}
	served := map[ownerKey]uint16{} // the port a server answered on
	for _, s := range ix.socks {
		g := groupKey{s.cgroup, s.role}
		if s.n == 0 || !shown[g] {
			continue
		}
		k := ownerKey{wanted[s.inode], g}
		counts[k] += int(s.n)
		if s.role == roleServed {
			served[k] = s.port
		}
		if s.remote.Port() != 0 {
			if peers[k] == nil {
				peers[k] = map[netip.AddrPort]int{}
			}
			peers[k][s.remote] += int(s.n)
		}
	}
	for k, c := range counts {
		oc := model.OwnerCount{Owner: ownerOf(r, k.pid, paths[k.cgroup]), N: c, Accepted: k.role == roleAccepted, Served: k.role == roleServed}
		oc.Peer, oc.PeerN = topPeer(peers[k])
		if oc.Served {
			oc.Peer, oc.PeerN = "udp/"+strconv.Itoa(int(served[k])), c
		}
		out.Top = append(out.Top, oc)
	}
	out.Top = model.TopOwners(append(out.Top, ix.awayCounts()...), n)
	return out
}

// awayCounts are the entries other namespaces opened, by what they
// belong to (a pod's addresses together), marked forwarded.
func (ix *SocketIndex) awayCounts() []model.OwnerCount {
	byOwner := map[model.Owner]int{}
	peers := map[model.Owner]map[netip.AddrPort]int{}
	for src, ps := range ix.fromAway {
		o := ix.away[src]
		if peers[o] == nil {
			peers[o] = map[netip.AddrPort]int{}
		}
		for p, c := range ps {
			byOwner[o] += c
			if p.IsValid() {
				peers[o][p] += c
			}
		}
	}
	var out []model.OwnerCount
	for o, c := range byOwner {
		oc := model.OwnerCount{Owner: o, N: c, Forwarded: true}
		oc.Peer, oc.PeerN = topPeer(peers[o])
		out = append(out, oc)
	}
	return out
}

// ownerOf names the owner of a socket: its process (pid 0: not found)
// and its cgroup, by the cgroup's path when known, else by the process's.
func ownerOf(r Trees, pid int, cgroupPath string) model.Owner {
	var o model.Owner
	if pid > 0 {
		o.PID, o.Comm = pid, commOf(r.Proc, pid)
	}
	if cgroupPath != "" {
		o.Group, o.Kind = GroupOf(cgroupPath)
	} else if pid > 0 {
		o.Group, o.Kind = ProcessGroup(r.Proc, pid)
	}
	return o
}

// overBudgetNote says that an owner lookup stopped at its budget of file
// descriptors: the owners it did not reach are shown by cgroup only.
var overBudgetNote = "owner lookup over budget (" + units.Int(maxLookupFDs) + " file descriptors read): the rest are named by cgroup only"

// findProcesses fills wanted (socket inode → pid) from the fds of the
// processes of the cgroups in paths (when the sockets carried cgroup
// ids), or of every process, at most budget fds in all (maxLookupFDs); it reports
// whether a process's fds could not be read and whether the budget ran
// out first (a socket handed to another cgroup, fd tables multiplied by
// a user: what was not found is said, not waited for).
func findProcesses(r Trees, cgroups bool, paths map[uint64]string, wanted map[uint32]int, budget int) (denied, over bool) {
	var pids []int
	if cgroups && r.Cgroup2 != "" { // the cgroups' own processes
		for _, p := range paths {
			if p != "" {
				pids = append(pids, cgroupProcs(filepath.Join(r.Cgroup2, p))...)
			}
		}
	} else {
		pids = allPIDs(r.Proc)
	}
	left := len(wanted)
	for _, pid := range pids {
		if left == 0 {
			break
		}
		if budget <= 0 {
			return denied, true
		}
		err := socketInodes(r.Proc, pid, &budget, func(ino uint32) {
			if p, ok := wanted[ino]; ok && p == 0 {
				wanted[ino] = pid
				left--
			}
		})
		if errors.Is(err, fs.ErrPermission) {
			denied = true
		}
	}
	return denied, left > 0 && budget <= 0
}

// allPIDs lists the processes under proc, oldest pids first, at most
// maxCgroupProcs.
func allPIDs(proc string) []int {
	d, err := os.Open(proc)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			out = append(out, pid)
		}
	}
	sort.Ints(out) // /proc's own order, whatever the directory gave
	return out[:min(len(out), maxCgroupProcs)]
}

// topPeer is the peer most entries go to or come from, "" for none.
func topPeer(m map[netip.AddrPort]int) (string, int) {
	var best netip.AddrPort
	n := 0
	for ap, c := range m {
		if c > n || c == n && ap.Compare(best) < 0 {
			best, n = ap, c
		}
	}
	if n == 0 {
		return "", 0
	}
	return best.String(), n
}

// ProcessGroup names a process's cgroup from its /proc/PID/cgroup.
func ProcessGroup(proc string, pid int) (name, kind string) {
	b, err := kernelfs.ReadBounded(filepath.Join(proc, strconv.Itoa(pid), "cgroup"), 64<<10)
	if err != nil {
		return "", ""
	}
	return GroupOf(unifiedPath(string(b)))
}
