package probes

import (
	"path/filepath"
	"time"

	"github.com/cilium/ebpf"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/owners"
)

// connEntry and dropEntry are one element of the probes' maps.
type (
	connEntry struct {
		k probesConnKey
		v probesConnVal
	}
	dropEntry struct {
		k probesDropKey
		n uint64
	}
)

// conns sums the connection entries by owner and destination, in the
// order first seen, and names each cgroup's owner: a drop knows its
// socket's cgroup only, and a connection of the same cgroup names it
// when the cgroup's path cannot be read.
func (w *Programs) conns(entries []connEntry) ([]model.ConnFlow, map[uint64]model.Owner) {
	type connID struct {
		cgroup uint64
		tgid   uint32
		netns  uint32
		proto  uint8
		dest   string
	}
	conns := map[connID]*model.ConnFlow{}
	var order []connID
	for _, e := range entries {
		k, v := e.k, e.v
		id := connID{k.Cgroup, k.Tgid, k.Netns, k.Proto, addrOf(uint16(k.Family), k.Daddr, k.Dport)}
		c, ok := conns[id]
		if !ok {
			c = &model.ConnFlow{Owner: w.elsewhere(w.owner(k.Cgroup, int(k.Tgid), comm(v.Comm)), k.Netns), Proto: k.Proto, Dest: id.dest}
			conns[id] = c
			order = append(order, id)
		}
		c.Opened += v.Opened
		c.Closed += v.Closed
		c.Failed += v.Failed
		c.LifeSum += time.Duration(v.LifeNs)
		for i := range c.Life {
			c.Life[i] += v.Life[i]
		}
	}
	all := make([]model.ConnFlow, 0, len(order))
	groups := map[uint64]model.Owner{}
	for _, id := range order {
		all = append(all, *conns[id])
		o := conns[id].Owner
		groups[id.cgroup] = model.Owner{Group: o.Group, Kind: o.Kind}
	}
	return all, groups
}

// readLost is how many events the probes lost since the last read
// (summed per CPU).
func (w *Programs) readLost() uint64 {
	var lost uint64
	for i := range w.lost {
		var per []uint64
		if w.objs.Lost.Lookup(uint32(i), &per) == nil {
			var sum uint64
			for _, v := range per {
				sum += v
			}
			lost += sum - w.lost[i]
			w.lost[i] = sum
		}
	}
	return lost
}

// drain moves every element out of m, a batch at a time.
func drain[K, V any](m *ebpf.Map, each func(K, V)) {
	keys, vals := make([]K, groupBatch), make([]V, groupBatch)
	var cursor ebpf.MapBatchCursor
	for range owners.MaxCgroupDirs / groupBatch { // bounded, whatever the kernel answers
		n, err := m.BatchLookupAndDelete(&cursor, keys, vals, nil)
		for i := range n {
			each(keys[i], vals[i])
		}
		if err != nil { // ErrKeyNotExist: the end
			return
		}
	}
}

// elsewhere names the owner of a connection made in namespace ino: as it
// is in the watched namespace, else by its pod or container, else by the
// namespace (model.NamespaceName) with the process as detail.
func (w *Programs) elsewhere(o model.Owner, ino uint32) model.Owner {
	if ino == 0 || uint64(ino) == w.netns || o.Kind == "pod" || o.Kind == "container" {
		return o
	}
	if w.mounts == nil {
		w.mounts = kernelfs.NetnsMounts(filepath.Join(w.roots.Proc, "self", "mountinfo"))
	}
	o.Group, o.Kind = owners.NetnsName(w.roots.Proc, o.PID, uint64(ino), w.mounts)
	return o
}
