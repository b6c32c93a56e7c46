//go:build bench

package sources

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/cilium"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/ipvs"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/namespaces"
	"github.com/tablefull/tablefull/sources/nic"
	"github.com/tablefull/tablefull/sources/owners"
	"github.com/tablefull/tablefull/sources/ruleset"
	"github.com/tablefull/tablefull/sources/tune"
)

// reader is one row of the readers' budget: how often it reads far from
// the cap and near it (reads a second, by the constants the code runs
// on), what it costs when there is nothing for it to read, what makes a
// read grow, and one read of it on this host.
type reader struct {
	name      string
	far, near float64
	absent    string
	grows     string
	read      func()
}

// per is the reads a second of a period.
func per(d time.Duration) float64 { return float64(time.Second) / float64(d) }

// readers are every reader of a live collector over this host.
func readers(t *testing.T, c *Collector) []reader {
	now := time.Now()
	ns := namespaces.NewNamespaces(kernelfs.DefaultRoots())
	t.Cleanup(func() { ns.Close() })
	look := &tune.ManagerLook{Proc: "/proc"}
	known := map[uint32]model.Owner{}
	later := time.Now() // a reader that reads at most every period is asked past it each time
	past := func(d time.Duration) time.Time { later = later.Add(d); return later }
	walk := func() { now = now.Add(namespaces.NamespacesEvery); ns.Read(now, 1<<18) }
	census := func() { TakeCensus("/proc", nil) }
	return []reader{
		{"the count at 10 Hz (the peak's glance)", 0, per(counters.FastRate), "—", "nothing", func() { c.PollPeak() }},
		{"count, cap, buckets, holds", 1, 1, "—", "nothing (the holds every " + counters.HoldsEvery.String() + ")", func() { c.table.Read() }},
		{"per-CPU conntrack counters", 1, 1, "—", "CPUs", func() { c.ctFile.Read() }},
		{"CPU times", 1, 1, "—", "CPUs", func() { c.cpu.Read() }},
		{"disks", 1, 1, "—", "disks", func() { c.disk.Read() }},
		{"TCP signals (snmp, netstat, sockstat)", 1, 1, "—", "nothing", func() { c.tcp.Read() }},
		{"kernel log", 1, 1, "—", "lines logged", func() { c.kmsg.Poll(time.Now()) }},
		{"namespaces: the walk", per(namespaces.NamespacesEvery), per(namespaces.NamespacesEvery), "a directory of /proc", "processes first seen", walk},
		{"namespaces: their counts", 1, 1, "nothing", "namespaces due (idle ones less often)", func() { ns.Read(now, 1<<18) }},
		{"drift of the persisted knobs", per(tune.DriftEvery), per(tune.DriftEvery), "tablefull's two files", "knobs persisted", func() { c.drift.Read(past(tune.DriftEvery)) }},
		{"kube-proxy's look (the flush watch's switch)", per(FlushRecheck), per(FlushRecheck), "the same look", "processes first seen (all every " + fmt.Sprint(tune.WholeLookEvery) + "th look)", func() { look.Present() }},
		{"IPVS", per(ipvs.ReadEvery), per(ipvs.ReadEvery), "an open that fails", "virtual services", func() { ipvs.Read("/proc") }},
		{"Cilium's maps", per(cilium.CountEvery), per(cilium.CountEvery), "a directory not found", "maps' entries", func() { c.cilium.Read(past(cilium.CountEvery)) }},
		{"cloud NIC allowances", 1, 1, "a rescan every " + nic.RescanEvery.String(), "NICs", func() { c.nic.Read(past(time.Second)) }},
		{"pressed listeners", 0, 1, "nothing: only when listen queues overflow", "listeners", func() { owners.ReadListeners("/proc", owners.SocketDump{Timeout: 2 * time.Second}, known) }},
		{"source NAT and Services (nft list ruleset)", 0, per(ruleset.RereadEvery), "nothing: only when entries fail to insert", "rules", func() { ruleset.List(context.Background()) }},
		{"the census of the table", 0, per(model.CensusEvery(0)), "nothing: only near the cap", "entries (walked, never kept)", census},
	}
}

// TestRatioReaderBudget prints, and with BUDGET_OUT writes as Markdown
// (make bench: docs/budget.md), each reader's cost per read on this host
// (a benchmark's loop: warm caches, no wake-up) times how often it runs
// far from the cap and near it. The process's whole CPU, wake-ups and
// all, is what the ratios against node_exporter and the raw floor
// measure; this table says where it goes. Readers driven by events (new
// and ended entries, the flush watch where kube-proxy runs, the eBPF
// probes near the cap) cost per event: TestRatioEvents and TestRatioWho.
func TestRatioReaderBudget(t *testing.T) {
	c, err := NewCollector(kernelfs.DefaultRoots())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.OpenPeak()
	c.DrainKernelLog = true
	c.Sample(time.Now(), time.Second)
	var b strings.Builder
	fmt.Fprintf(&b, "| reader | reads a second, far / near the cap | µs a read | allocations a read | µs a second, far / near | with nothing to read | grows with |\n|---|---|---|---|---|---|---|\n")
	var farSum, nearSum float64
	for _, r := range readers(t, c) {
		res := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				r.read()
			}
		})
		us := float64(res.NsPerOp()) / 1000
		farSum, nearSum = farSum+us*r.far, nearSum+us*r.near
		fmt.Fprintf(&b, "| %s | %s / %s | %.1f | %d | %.1f / %.1f | %s | %s |\n", r.name, rate(r.far), rate(r.near), us, res.AllocsPerOp(), us*r.far, us*r.near, r.absent, r.grows)
	}
	fmt.Fprintf(&b, "| **all readers** | | | | **%.0f / %.0f** | | |\n", farSum, nearSum)
	fmt.Print(b.String())
	if out := os.Getenv("BUDGET_OUT"); out != "" {
		head := fmt.Sprintf("# The readers' budget\n\n```\nmake bench\n```\n\nWritten by `make bench` (`TestRatioReaderBudget`) on %s, %s, kernel %s, %d CPUs. Each reader's cost is one read in a benchmark's loop (warm caches, no wake-up), times how often the collector runs it: far from the cap, and near it (or while what it reads for is happening). A process's whole CPU, wake-ups included, is what `make bench`'s ratios measure; this table says where it goes. The exporter reads a whole sample only every %s while far from its cap (the count and the per-CPU counters each second between). Readers driven by events cost per event, measured by `TestRatioEvents` (new and ended entries) and `TestRatioWho` (the probes near the cap); the flush watch subscribes only where kube-proxy runs, and the runtime's socket is asked only when an owner is a pod.\n\n",
			time.Now().UTC().Format("2006-01-02"), host(), c.Host().Kernel, c.Host().CPUs, QuietEvery)
		if err := os.WriteFile(out, []byte(head+b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// rate says reads a second, a period where under one.
func rate(r float64) string {
	switch {
	case r == 0:
		return "0"
	case r >= 1:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("1 per %.0f s", 1/r)
}

// host is the machine's name, for the table's heading.
func host() string {
	h, _ := os.Hostname()
	return h
}
