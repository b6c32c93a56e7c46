package cilium

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
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

// TestCiliumMapsWhoFills: real maps pinned as Cilium pins its TCP
// conntrack map and its IPv4 SNAT map, keyed as Cilium keys them: the
// conntrack map's flows named by who opened them (its addresses stored
// reversed) and where they go, related and service entries left out; the
// NAT map's by its egress entries only, each flow's ingress twin left
// out; and the NAT map sized by its own knob.
func TestCiliumMapsWhoFills(t *testing.T) {
	sys, dir := ciliumtest.BPFFS(t)
	pod5, pod6 := [4]byte{10, 0, 1, 5}, [4]byte{10, 0, 1, 6}
	dns, web := [4]byte{10, 96, 0, 10}, [4]byte{1, 1, 1, 1}
	var ct, nat [][]byte
	for i := range 60 { // pod5 → dns:53, stored reversed
		ct = append(ct, ciliumtest.Tuple4(pod5, dns, 53, uint16(40000+i), 17, 1))
	}
	for i := range 40 { // pod6 → web:443
		ct = append(ct, ciliumtest.Tuple4(pod6, web, 443, uint16(40000+i), 6, 1))
	}
	for i := range 10 { // related and service entries: nobody's flows
		ct = append(ct, ciliumtest.Tuple4(web, pod6, 443, uint16(50000+i), 6, 2), ciliumtest.Tuple4(web, pod6, 80, uint16(50000+i), 6, 4))
	}
	for i := range 30 { // pod6 → web:443 through SNAT: egress entry, and its ingress twin
		nat = append(nat, ciliumtest.Tuple4(web, pod6, 443, uint16(41000+i), 6, 0), ciliumtest.Tuple4([4]byte{192, 168, 0, 2}, web, uint16(61000+i), 443, 6, 1))
	}
	ciliumtest.PinKeys(t, filepath.Join(dir, "cilium_ct4_global"), 1024, ct)
	ciliumtest.PinKeys(t, filepath.Join(dir, "cilium_snat_v4_external"), 64, nat)
	got := NewReader(sys).Read(time.Now())
	if got == nil || len(got.Maps) != 2 {
		t.Fatalf("maps %+v", got)
	}
	c, n := got.Maps[0], got.Maps[1]
	if c.Entries != 120 || fmt.Sprint(c.Endpoints) != "[{10.0.1.5 60} {10.0.1.6 40}]" || fmt.Sprint(c.Dests) != "[{10.96.0.10:53 60} {1.1.1.1:443 40}]" {
		t.Errorf("conntrack map %+v", c)
	}
	if n.Name != "cilium_snat_v4_external" || n.Entries != 60 || fmt.Sprint(n.Endpoints) != "[{10.0.1.6 30}]" || fmt.Sprint(n.Dests) != "[{1.1.1.1:443 30}]" {
		t.Errorf("NAT map %+v", n)
	}
	if model.CiliumKnob(n.Name) != "bpf-nat-global-max" {
		t.Errorf("the NAT map's knob: %s", model.CiliumKnob(n.Name))
	}
}
