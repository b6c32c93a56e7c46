package ctnetlink

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestCTStatNetlinkAgreesWithProcfs reads the real kernel both ways. The
// counters are live, so the netlink values must lie between two procfs
// reads taken around it.
func TestCTStatNetlinkAgreesWithProcfs(t *testing.T) {
	kernelfstest.Need(t, "ctnetlink's stats (CAP_NET_ADMIN)")
	file := counters.NewCTStatFile("/proc")
	before, err := file.Read()
	if err != nil {
		t.Skipf("no /proc/net/stat/nf_conntrack to compare with: %v", err)
	}
	nl, err := CTStatNetlink{Timeout: 2 * time.Second}.Read()
	if err != nil {
		t.Fatalf("ctnetlink stats: %v", err)
	}
	after, err := file.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(nl.PerCPU) != len(before.PerCPU) {
		t.Fatalf("ctnetlink has %d CPUs, procfs %d", len(nl.PerCPU), len(before.PerCPU))
	}
	for _, c := range []model.Counter{model.Drop, model.EarlyDrop, model.InsertFailed, model.Invalid, model.SearchRestart, model.ClashResolve, model.ChainTooLong} {
		if !nl.Reports(c) {
			t.Errorf("ctnetlink does not report %s on this kernel", c)
		}
		for i, row := range nl.PerCPU {
			lo, hi := before.PerCPU[i].Values.Get(c), after.PerCPU[i].Values.Get(c)
			if v := row.Values.Get(c); v < lo || v > hi {
				t.Errorf("cpu%d %s: ctnetlink %d, procfs %d..%d", row.CPU, c, v, lo, hi)
			}
		}
	}
}
