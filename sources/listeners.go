package sources

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
)

// listenWatch reads the pressed listeners when the namespace's listen
// queues overflowed (ListenOverflows or ListenDrops rose) since the last
// sample, or, on the first, have ever overflowed: a dump of the
// listeners only, so a calm host pays nothing.
type listenWatch struct {
	// list reads the listeners (nil: never, as on a fixture's root,
	// where sock_diag would read this host's kernel instead).
	list func() model.Listeners
	last uint64
	seen bool
}

// newListenWatch watches the listeners of the namespace whose processes
// are under proc: the real /proc only.
func newListenWatch(proc string) listenWatch {
	if proc != "/proc" {
		return listenWatch{}
	}
	return listenWatch{list: func() model.Listeners { return ReadListeners(proc, SocketDump{Timeout: 2 * time.Second}) }}
}

// read returns the pressed listeners when the counters in t say they
// matter, nil otherwise or when t was not read.
func (w *listenWatch) read(t model.TCP, read bool) *model.Listeners {
	if !read || w.list == nil {
		return nil
	}
	n := t.ListenOverflows + t.ListenDrops
	rose := n > w.last || !w.seen && n > 0
	w.last, w.seen = n, true
	if !rose {
		return nil
	}
	ls := w.list()
	return &ls
}

// ReadListeners lists the caller's namespace's TCP listeners over
// sock_diag and returns those whose accept queue is pressed
// (model.Pressed), fullest first, each with the program listening.
func ReadListeners(proc string, d SocketDump) model.Listeners {
	out := model.Listeners{Pressed: []model.Listener{}}
	if v, err := ReadSysctlUint(sysctlPath(proc, "net.core.somaxconn")); err == nil {
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
	ls := make([]model.Listener, len(all))
	for i, p := range all {
		ls[i] = p.l
	}
	ls = model.MostPressed(ls, model.ListenersShown)
	r := newOwnerRoots(proc)
	paths, wanted := map[uint64]string{}, map[uint32]int{}
	for _, p := range all {
		paths[p.cgroup], wanted[p.inode] = "", 0
	}
	if cgroups {
		cgroupPaths(r.cgroup2, paths)
	}
	findProcesses(r, cgroups, paths, wanted)
	for i := range ls {
		for _, p := range all {
			if p.l.Addr == ls[i].Addr {
				ls[i].Owner = ownerOf(r, wanted[p.inode], paths[p.cgroup])
			}
		}
	}
	out.Pressed = ls
	return out
}
