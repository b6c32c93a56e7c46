package diagnose

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// bigSample is second i of a host with cpus CPUs and disks disks, every
// counter moving and a quarter of the CPUs dropping.
func bigSample(i, cpus, disks int) model.Sample {
	n := uint64(i)
	s := model.Sample{Time: time.Unix(int64(i), 0), Interval: time.Second,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096},
		CTStats:   model.CTStats{Source: "procfs", Reported: model.AllCounters}}
	for c := range cpus {
		var v model.CounterValues
		v.Set(model.SearchRestart, n*uint64(c))
		if c%4 == 0 {
			v.Set(model.Drop, n*uint64(c))
		}
		s.CTStats.PerCPU = append(s.CTStats.PerCPU, model.CPUCounters{CPU: c, Values: v})
		s.CPU = append(s.CPU, model.CPUTimes{CPU: c, User: float64(i) * float64(c%10) / 10, Idle: float64(i)})
	}
	for d := range disks {
		s.Disks = append(s.Disks, model.DiskIO{Name: "nvme" + string(rune('a'+d%26)), Reads: n * uint64(d)})
	}
	return s
}

// TestBigHostHistoryIsBounded: an hour of a 384-CPU, 24-disk host at 1 s
// keeps under 32 MB of heap in the analyzer (it was 1.2 GB when every
// frame kept every row); the newest frame keeps every row, older frames
// the most active.
func TestBigHostHistoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("an hour of a big host")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	an := NewAnalyzer(3600)
	for i := range 3600 {
		an.Add(bigSample(i, 384, 24))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if held := int64(after.HeapInuse) - int64(before.HeapInuse); held > 32<<20 {
		t.Errorf("an hour of a 384-CPU host holds %d MB", held>>20)
	}
	frames := an.Frames()
	newest, _ := frames.Last()
	if len(newest.Rates.CT) != 384 || len(newest.Rates.CPU) != 384 || len(newest.Sample.CTStats.PerCPU) != 384 {
		t.Errorf("the newest frame has %d/%d/%d rows, want all 384", len(newest.Rates.CT), len(newest.Rates.CPU), len(newest.Sample.CTStats.PerCPU))
	}
	old := frames.At(frames.Len() - 2)
	if len(old.Rates.CT) != HistoryRows || old.CPUs != 384 || old.Sample.CTStats.PerCPU != nil || len(old.Rates.Disks) != HistoryDisks {
		t.Fatalf("an older frame keeps %d CT rows, %d disks (CPUs %d)", len(old.Rates.CT), len(old.Rates.Disks), old.CPUs)
	}
	for _, r := range old.Rates.CT { // the dropping CPUs are the ones kept
		if r.CPU%4 != 0 || r.Values.Get(model.Drop) == 0 {
			t.Fatalf("kept a quiet CPU %d: %v", r.CPU, r.Values)
		}
	}
	runtime.KeepAlive(an)
}

// sortedTopRows is the rule topRows keeps, written the plain way: a
// stable sort by score, the first n, then a stable sort by id.
func sortedTopRows(rows []model.CPUUse, n int, byID bool) []model.CPUUse {
	if len(rows) <= n {
		return rows
	}
	order := append([]model.CPUUse(nil), rows...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Busy() > order[j].Busy() })
	kept := order[:n]
	if byID {
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].CPU < kept[j].CPU })
	}
	return kept
}

func TestTopRowsKeepsTheBusiest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 2000 {
		rows := make([]model.CPUUse, rng.IntN(60))
		for i := range rows {
			// few distinct scores, so ties are common; ids repeat sometimes
			rows[i] = model.CPUUse{CPU: rng.IntN(len(rows) + 1), Idle: float64(rng.IntN(5) * 20)}
		}
		n := rng.IntN(30)
		for _, byID := range []bool{false, true} {
			id := func(u model.CPUUse) int { return u.CPU }
			if !byID {
				id = nil
			}
			got, want := topRows(rows, n, model.CPUUse.Busy, id), sortedTopRows(rows, n, byID)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, n %d, by id %v:\n got %v\nwant %v", round, n, byID, got, want)
			}
		}
	}
}
