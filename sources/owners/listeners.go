package owners

import (
	"sort"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// ListenWatch reads the pressed listeners when the namespace's listen
// queues overflowed (ListenOverflows or ListenDrops rose) since the last
// sample, or, on the first, have ever overflowed: a dump of the
// listeners only, so a calm host pays nothing.
type ListenWatch struct {
	// list reads the listeners, naming those not in known (nil: never,
	// as on a fixture's root, where sock_diag would read this host's
	// kernel instead).
	list func(known map[uint32]model.Owner) model.Listeners
	// known are the owners of the listeners shown last, by socket inode:
	// an incident's listeners are named once, not every sample.
	known map[uint32]model.Owner
	last  uint64
	seen  bool
}

// NewListenWatch watches the listeners of the namespace whose processes
// are under proc: the real kernel's only.
func NewListenWatch(proc string) ListenWatch {
	if !KernelRoot(proc) {
		return ListenWatch{}
	}
	return ListenWatch{known: map[uint32]model.Owner{}, list: func(known map[uint32]model.Owner) model.Listeners {
		return ReadListeners(proc, SocketDump{Timeout: 2 * time.Second}, known)
	}}
}

// KernelRoot reports whether proc is the real /proc: the netlink and
// eBPF readers read the running kernel, never a fixture's root.
func KernelRoot(proc string) bool { return proc == "/proc" }

// Read returns the pressed listeners when the counters in t say they
// matter, nil otherwise or when t was not read.
func (w *ListenWatch) Read(t model.TCP, read bool) *model.Listeners {
	if !read || w.list == nil {
		return nil
	}
	n := t.ListenOverflows + t.ListenDrops
	rose := n > w.last || !w.seen && n > 0
	w.last, w.seen = n, true
	if !rose {
		return nil
	}
	ls := w.list(w.known)
	return &ls
}

// ReadListeners lists the caller's namespace's TCP listeners over
// sock_diag and returns those whose accept queue is pressed
// (model.Pressed), fullest first, at most ListenersShown, each with the
// program listening. known (may be nil) holds owners by socket inode:
// only the others are looked up (a cgroup walk and the processes' fds),
// and it is left holding the shown ones'.
func ReadListeners(proc string, d SocketDump, known map[uint32]model.Owner) model.Listeners {
	out := model.Listeners{Pressed: []model.Listener{}}
	if v, err := kernelfs.ReadSysctlUint(kernelfs.SysctlPath(proc, "net.core.somaxconn")); err == nil {
		out.Somaxconn = v
	}
	type pressed struct {
		l      model.Listener
		inode  uint32
		cgroup uint64
	}
	var all []pressed
	cgroups := false
	err := d.Each(unix.IPPROTO_TCP, 1<<tcpListen, func(r SocketRow) {
		out.Listening++
		cgroups = cgroups || r.Cgroup != 0
		if model.Pressed(r.RQueue, r.WQueue) {
			all = append(all, pressed{model.Listener{Addr: r.Local.String(), Queue: r.RQueue, Backlog: r.WQueue}, r.Inode, r.Cgroup})
		}
	})
	if err != nil {
		out.Error = err.Error()
		return out
	}
	sort.Slice(all, func(i, j int) bool { return model.PressedBefore(all[i].l, all[j].l) })
	all = all[:min(len(all), model.ListenersShown)]
	r := NewRoots(proc)
	paths, wanted := map[uint64]string{}, map[uint32]int{}
	for _, p := range all {
		if _, ok := known[p.inode]; !ok {
			paths[p.cgroup], wanted[p.inode] = "", 0
		}
	}
	if len(wanted) > 0 {
		if cgroups {
			CgroupPaths(r.Cgroup2, paths)
		}
		if _, over := findProcesses(r, cgroups, paths, wanted, maxLookupFDs); over {
			out.Note = overBudgetNote // the rest named by cgroup
		}
	}
	shown := make(map[uint32]model.Owner, len(all))
	for _, p := range all {
		o, ok := known[p.inode]
		if !ok {
			o = ownerOf(r, wanted[p.inode], paths[p.cgroup])
		}
		shown[p.inode] = o
		p.l.Owner = o
		out.Pressed = append(out.Pressed, p.l)
	}
	if known != nil {
		clear(known)
		for ino, o := range shown {
			known[ino] = o
		}
	}
	return out
}
