package probes

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"syscall"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/owners"
)

// Programs are the kernel probes of sources/bpf/who.c. Two BTF-typed
// raw tracepoints (no tracefs needed): sock:inet_sock_set_state counts
// each process's new TCP connections (and their lifetimes) by cgroup and
// destination; skb:kfree_skb the packets netfilter dropped before
// conntrack gave them an entry, by the sending socket's cgroup and tuple
// (kernel 5.17+, for the drop reason); and, where the kernel can trace
// functions, fexit on nf_conntrack_in marks the packets conntrack itself
// refused, so that a rule's drop of an invalid packet is counted apart
// (split.go). Four cgroup hooks on the root of
// the cgroup v2 hierarchy (connect and sendmsg, v4 and v6) count each
// process's new UDP flows; they allow every call. Their maps have fixed
// sizes; what did not fit is counted as lost. Close detaches them; so
// does the process's exit, whatever ends it (the links are file
// descriptors).
type Programs struct {
	objs  probesObjects
	links []link.Link
	roots owners.Trees
	// groups caches the cgroups' names (Group and Kind) by id, at most
	// MaxCgroupDirs; unknown the ids a walk did not find (a group gone
	// before it was read), so that they never cost another walk.
	groups  map[uint64]model.Owner
	unknown map[uint64]struct{}
	// lost is the lost counters' last sums; elsewhere the rule-drop
	// counter's.
	lost      [2]uint64
	ruleDrops uint64
	// split says ct_refused is attached: the drops are conntrack's own.
	split bool
	// limit says what they do not count here ("": everything).
	limit string
	// netns is the watched namespace's inode: connections made in
	// another are named by their pod, container or namespace.
	netns uint64
	// mounts are the namespaces' bind mounts, read once for a Read that
	// names another namespace.
	mounts map[uint64]kernelfs.NSMount
}

// Load loads the probes for the network namespace at netns (a
// /proc/PID/ns/net or an ip netns mount): its table's drops, and the new
// connections of every namespace (a pod's connections fill its node's
// table), each named by its owner, or by its namespace when made in
// another. Owners are looked up under proc. It needs CAP_BPF and
// CAP_PERFMON (or CAP_SYS_ADMIN) and the kernel's BTF; the error says
// which was missing.
func Load(proc, netns string) (*Programs, error) {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return nil, fmt.Errorf("load eBPF probes: the kernel has no BTF (/sys/kernel/btf/vmlinux): %w", kernelfs.ErrUnavailable)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(netns, &st); err != nil {
		return nil, fmt.Errorf("load eBPF probes: read the network namespace: %w", err)
	}
	if err := rlimit.RemoveMemlock(); err != nil { // before 5.11, maps count against RLIMIT_MEMLOCK
		return nil, fmt.Errorf("load eBPF probes: %w", classifyBPF(err))
	}
	spec, err := loadProbes()
	if err != nil {
		return nil, fmt.Errorf("load eBPF probes: %w", err)
	}
	if err := spec.Variables[probesVarNetnsInum].Set(uint32(st.Ino)); err != nil {
		return nil, fmt.Errorf("load eBPF probes: %w", err)
	}
	w := &Programs{roots: owners.NewRoots(proc), groups: map[uint64]model.Owner{}, unknown: map[uint64]struct{}{}, netns: st.Ino}
	spec.Programs[probesProgCtRefused].AttachTo = refusedTarget
	if err := spec.LoadAndAssign(&w.objs, nil); err != nil {
		var rest error
		if w.objs, rest = loadWithoutRefused(spec); rest != nil {
			return nil, fmt.Errorf("load eBPF probes: %w", classifyBPF(err))
		}
	}
	for _, p := range []*ebpf.Program{w.objs.TcpState, w.objs.SkbDrop} {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("attach eBPF probe %s: %w", p, classifyBPF(err))
		}
		w.links = append(w.links, l)
	}
	var limits []string
	if err := w.splitDrops(); err != nil {
		limits = append(limits, "drops are netfilter's of packets without an entry, a rule's included ("+err.Error()+")")
	}
	if err := w.attachUDP(); err != nil { // the census's sockets still name the live UDP flows' owners
		limits = append(limits, "TCP only: UDP flows are the census's ("+err.Error()+")")
	}
	w.limit = strings.Join(limits, "; ")
	return w, nil
}

// attachUDP attaches the UDP hooks to the root of the cgroup v2
// hierarchy: every process's connect and sendmsg, in every namespace.
// Without the hierarchy (ip netns exec mounts a sysfs of its own) they
// stay off.
func (w *Programs) attachUDP() error {
	if w.roots.Cgroup2 == "" {
		return errors.New("the cgroup v2 hierarchy is not mounted here")
	}
	for _, h := range []struct {
		prog   *ebpf.Program
		attach ebpf.AttachType
	}{{w.objs.UdpConnect4, ebpf.AttachCGroupInet4Connect}, {w.objs.UdpSendmsg4, ebpf.AttachCGroupUDP4Sendmsg},
		{w.objs.UdpConnect6, ebpf.AttachCGroupInet6Connect}, {w.objs.UdpSendmsg6, ebpf.AttachCGroupUDP6Sendmsg}} {
		l, err := link.AttachCgroup(link.CgroupOptions{Path: w.roots.Cgroup2, Attach: h.attach, Program: h.prog})
		if err != nil {
			return fmt.Errorf("attach %s: %w", h.prog, classifyBPF(err))
		}
		w.links = append(w.links, l)
	}
	return nil
}

// classifyBPF maps a refusal onto ErrPermission.
func classifyBPF(err error) error {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("%w: %w (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)", kernelfs.ErrPermission, err)
	}
	return err
}

// Close detaches and unloads the probes.
func (w *Programs) Close() error {
	var errs []error
	for _, l := range w.links {
		errs = append(errs, l.Close())
	}
	w.links = nil
	errs = append(errs, w.objs.Close())
	return errors.Join(errs...)
}

// groupBatch is how many map elements one batch call moves.
const groupBatch = 256

// Read takes what the probes counted since the last Read (the maps are
// emptied as they are read) and names the owners.
func (w *Programs) Read() *model.Who {
	out := &model.Who{Conns: []model.ConnFlow{}, Drops: []model.DropFlow{}, Limit: w.limit}
	w.mounts = nil // read again when a connection of another namespace needs them
	var connEntries []connEntry
	var dropEntries []dropEntry
	drain(w.objs.Conns, func(k probesConnKey, v probesConnVal) { connEntries = append(connEntries, connEntry{k, v}) })
	drain(w.objs.Drops, func(k probesDropKey, n uint64) { dropEntries = append(dropEntries, dropEntry{k, n}) })
	ids := make([]uint64, 0, len(connEntries)+len(dropEntries))
	for _, e := range connEntries {
		ids = append(ids, e.k.Cgroup)
	}
	for _, e := range dropEntries {
		ids = append(ids, e.k.Cgroup)
	}
	w.resolve(ids)
	all, groups := w.conns(connEntries)
	out.Conns, out.OtherOpened = model.TopConns(all, model.WhoShown)
	var drops []model.DropFlow
	for _, e := range dropEntries {
		k, fam := e.k, uint16(e.k.Family)
		o, ok := groups[k.Cgroup]
		if !ok {
			o = w.owner(k.Cgroup, 0, "")
		}
		drops = append(drops, model.DropFlow{Owner: o, Src: addrOf(fam, k.Saddr, 0),
			Dest: addrOf(fam, k.Daddr, k.Dport), Proto: k.Proto, N: e.n})
	}
	out.Drops, out.OtherDrops = model.TopDrops(drops, model.WhoShown)
	out.Lost = w.readLost()
	if w.split {
		out.DropsSplit, out.DroppedByRules = true, w.readElsewhere()
	}
	return out
}

// owner names a cgroup id and process; the name is the kernel's comm at
// the connect, the process may be gone. A cgroup is named once: by its
// path (resolve), or where that cannot be read, by the first of its
// processes seen.
func (w *Programs) owner(cgroup uint64, pid int, name string) model.Owner {
	g, ok := w.groups[cgroup]
	if !ok && cgroup != 0 && pid > 0 { // its path was not found: the process's group, while it lives
		if g.Group, g.Kind = owners.ProcessGroup(w.roots.Proc, pid); g.Kind != "" && len(w.groups) < owners.MaxCgroupDirs {
			w.groups[cgroup] = g
			delete(w.unknown, cgroup)
		}
	}
	return model.Owner{PID: pid, Comm: name, Group: g.Group, Kind: g.Kind}
}

// resolve names the cgroups of ids not named yet in one walk of the
// hierarchy, whatever their number; an id the walk does not find is
// remembered as unknown and never walked for again. Both caches are
// bounded by MaxCgroupDirs (the unknown one starts over when full). It
// returns how many ids it walked for.
func (w *Programs) resolve(ids []uint64) int {
	want := map[uint64]string{}
	for _, id := range ids {
		_, named := w.groups[id]
		_, unknown := w.unknown[id]
		if id != 0 && !named && !unknown {
			want[id] = ""
		}
	}
	if len(want) == 0 {
		return 0
	}
	owners.CgroupPaths(w.roots.Cgroup2, want)
	if len(w.unknown) >= owners.MaxCgroupDirs {
		clear(w.unknown)
	}
	for id, path := range want {
		var g model.Owner
		if path != "" {
			g.Group, g.Kind = owners.GroupOf(path)
		}
		switch {
		case g.Kind != "" && len(w.groups) < owners.MaxCgroupDirs:
			w.groups[id] = g
		case g.Kind == "":
			w.unknown[id] = struct{}{}
		}
	}
	return len(want)
}

// addrOf is an address and port as the probes wrote them ("10.0.0.1:80",
// "[::1]:80"); port 0 leaves the port out.
func addrOf(family uint16, b [16]uint8, port uint16) string {
	var a netip.Addr
	if family == syscall.AF_INET {
		a = netip.AddrFrom4([4]byte(b[:4]))
	} else {
		a = netip.AddrFrom16(b).Unmap()
	}
	if port == 0 {
		return a.String()
	}
	return netip.AddrPortFrom(a, port).String()
}

// comm is a kernel task name.
func comm(c [16]int8) string {
	b := make([]byte, 0, len(c))
	for _, x := range c {
		if x == 0 {
			break
		}
		b = append(b, byte(x))
	}
	return string(b)
}
