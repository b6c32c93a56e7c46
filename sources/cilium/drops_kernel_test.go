package cilium

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/cilium/ciliumtest"
)

// TestCiliumDropReasons: a real per-CPU map pinned as Cilium pins
// cilium_metrics, keyed and valued as its v1.16 does: the drop reasons
// are read summed over CPUs and directions, forwarded packets left out,
// named as Cilium names them; a second read says which rose, and the
// CILIUM CT MAP verdict holds on map insertions that failed, though no
// map is near its size. A metrics map of another layout is said "not
// read", never read as no drops.
func TestCiliumDropReasons(t *testing.T) {
	sys, dir := ciliumtest.BPFFS(t)
	ciliumtest.PinMap(t, filepath.Join(dir, "cilium_ct4_global"), 1024, 100)
	m := ciliumtest.PinMetrics(t, filepath.Join(dir, metricsMap), metricsKeySize, []ciliumtest.Metric{
		{Reason: 0, Dir: 1, PerCPU: []uint64{5000, 5000}},
		{Reason: model.CiliumDropCTInsert, Dir: 1, PerCPU: []uint64{30, 10}},
		{Reason: model.CiliumDropCTInsert, Dir: 2, PerCPU: []uint64{2}},
		{Reason: 133, Dir: 1, PerCPU: []uint64{7}},
		{Reason: 250, Dir: 2, PerCPU: []uint64{1}},
	})
	r := NewReader(sys)
	now := time.Now()
	got := r.Read(now)
	if got == nil || got.DropsNote != "" || len(got.Drops) != 3 {
		t.Fatalf("drops %+v", got)
	}
	if d := got.Drops[0]; d.Name != "CT: Map insertion failed" || d.Packets != 42 || d.Rose != 0 {
		t.Errorf("the first read: %+v", d)
	}
	if txt := got.DropsText(); txt != "CT: Map insertion failed 42, Policy denied 7, reason 250 1" {
		t.Errorf("said %q", txt)
	}
	ciliumtest.PutMetrics(t, m, []ciliumtest.Metric{{Reason: model.CiliumDropCTInsert, Dir: 1, PerCPU: []uint64{50, 10}}})
	got = r.Read(now.Add(CountEvery))
	if d := got.Drops[0]; d.Packets != 62 || d.Rose != 20 {
		t.Errorf("the second read: %+v", d)
	}
	vs := diagnose.Judge(diagnose.Inputs{Sample: model.Sample{Time: now, Cilium: got,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: 10, Peak: 10, Max: 262144, Buckets: 262144}}})
	if vs[0].Kind != verdict.CiliumCT || !strings.Contains(vs[0].Text(), "holds 100 of its 1,024 entries (10 %)") ||
		!strings.Contains(vs[0].Text(), "since its previous read Cilium dropped 20 packets for CT: Map insertion failed") {
		t.Errorf("verdicts %v", vs)
	}

	sys2, dir2 := ciliumtest.BPFFS(t)
	ciliumtest.PinMap(t, filepath.Join(dir2, "cilium_ct4_global"), 1024, 1)
	ciliumtest.PinMetrics(t, filepath.Join(dir2, metricsMap), 12, []ciliumtest.Metric{{Reason: model.CiliumDropCTInsert, PerCPU: []uint64{9}}})
	other := NewReader(sys2).Read(now)
	if other == nil || len(other.Drops) != 0 || !strings.Contains(other.DropsText(), "not read") || !strings.Contains(other.DropsText(), "12-byte keys") {
		t.Errorf("a layout not known: %+v (%q)", other, other.DropsText())
	}
}
