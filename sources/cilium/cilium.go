// Package cilium reads Cilium's BPF connection-tracking and SNAT maps
// where Cilium runs: pinned under the BPF filesystem's tc/globals, each
// map's size from the kernel and its entries by walking its keys, so that
// a map near its size — flows evicted, or source ports not found, while
// nf_conntrack is healthy — is named, with who fills it; and the drop
// reasons Cilium counts in its metrics map, where its layout is one
// tablefull knows. It finds nothing (and says nothing) where no map is
// pinned, walks the maps at most every CountEvery, and never changes a
// map.
package cilium

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cilium/ebpf"

	"github.com/tablefull/tablefull/model"
)

// CountEvery is how often the maps are walked at most: a walk is a
// system call per entry.
const CountEvery = 30 * time.Second

// Maps are the conntrack and SNAT maps Cilium pins, by their pinned
// names.
var Maps = []string{"cilium_ct4_global", "cilium_ct_any4_global", "cilium_ct6_global", "cilium_ct_any6_global",
	"cilium_snat_v4_external", "cilium_snat_v6_external"}

// Reader reads the maps pinned under a BPF filesystem.
type Reader struct {
	dir   string
	last  time.Time
	have  *model.CiliumMaps
	drops dropReader
}

// NewReader reads the maps pinned under the sysfs root sys's BPF
// filesystem (sys/fs/bpf/tc/globals).
func NewReader(sys string) *Reader {
	return &Reader{dir: filepath.Join(sys, "fs", "bpf", "tc", "globals")}
}

// Read is the maps at now, walked again once CountEvery passed; nil when
// none is pinned.
func (r *Reader) Read(now time.Time) *model.CiliumMaps {
	if !r.last.IsZero() && now.Sub(r.last) < CountEvery && !now.Before(r.last) {
		return r.have
	}
	r.last, r.have = now, nil
	if _, err := os.Stat(r.dir); err == nil { // no BPF filesystem, or no Cilium: one look
		r.have = read(r.dir)
	}
	if r.have != nil { // Cilium runs here: its drop reasons too
		r.have.Drops, r.have.DropsNote = r.drops.read(r.dir)
	}
	return r.have
}

// read walks every map pinned in dir.
func read(dir string) *model.CiliumMaps {
	var out *model.CiliumMaps
	for _, name := range Maps {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			continue // not pinned: not Cilium's, or not this family
		}
		if out == nil {
			out = &model.CiliumMaps{}
		}
		m, err := count(path)
		if err != nil {
			out.Note = err.Error()
			continue
		}
		m.Name = name
		out.Maps = append(out.Maps, m)
	}
	return out
}

// count opens a pinned map read-only, counts its keys, at most its size
// (a walk that a concurrent delete sends back to the start stops there),
// and tallies who fills it from the keys (owners.go).
func count(path string) (model.CiliumMap, error) {
	m, err := ebpf.LoadPinnedMap(path, &ebpf.LoadPinOptions{ReadOnly: true})
	if err != nil {
		return model.CiliumMap{}, fmt.Errorf("open %s: %w", filepath.Base(path), err)
	}
	defer m.Close()
	max := uint64(m.MaxEntries())
	key := make([]byte, m.KeySize())
	next := make([]byte, m.KeySize())
	t := newTally(filepath.Base(path), int(m.KeySize()))
	var n uint64
	for prev := any(nil); n < max; prev = key {
		err := m.NextKey(prev, &next)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			break
		}
		if err != nil {
			return model.CiliumMap{}, fmt.Errorf("walk %s: %w", filepath.Base(path), err)
		}
		n++
		copy(key, next)
		t.add(key)
	}
	out := model.CiliumMap{Entries: n, Max: max}
	t.top(&out)
	return out, nil
}
