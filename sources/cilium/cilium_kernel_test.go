package cilium

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/cilium/ciliumtest"
)

// TestReadCiliumMaps: real maps pinned where Cilium pins its own are read
// with their size and their entries; none pinned reads nil (no Cilium,
// not a map at 0); the maps are walked again only after CountEvery.
func TestReadCiliumMaps(t *testing.T) {
	sys, dir := ciliumtest.BPFFS(t)
	r := NewReader(sys)
	now := time.Now()
	if got := r.Read(now); got != nil {
		t.Fatalf("no map pinned read as %+v", got)
	}
	ciliumtest.PinMap(t, filepath.Join(dir, "cilium_ct4_global"), 1024, 1000)
	ciliumtest.PinMap(t, filepath.Join(dir, "cilium_ct_any4_global"), 512, 7)
	ciliumtest.PinMap(t, filepath.Join(dir, "cilium_lb4_services"), 64, 3) // not a conntrack map
	if got := r.Read(now.Add(time.Second)); got != nil {
		t.Errorf("walked again within CountEvery: %+v", got)
	}
	got := r.Read(now.Add(CountEvery))
	if got == nil || len(got.Maps) != 2 || got.Note != "" {
		t.Fatalf("maps %+v", got)
	}
	if m := got.Maps[0]; m.Name != "cilium_ct4_global" || m.Entries != 1000 || m.Max != 1024 {
		t.Errorf("tcp map %+v", m)
	}
	if m := got.Maps[1]; m.Name != "cilium_ct_any4_global" || m.Entries != 7 || m.Max != 512 {
		t.Errorf("any map %+v", m)
	}
}
