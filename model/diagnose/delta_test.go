package diagnose

import (
	"maps"
	"math"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/verdict"
)

func TestDelta(t *testing.T) {
	t0 := time.Unix(1000, 0)
	stats := func(drop0, drop1, restart uint64) model.CTStats {
		return model.CTStats{Source: "procfs", Reported: []model.Counter{model.Drop, model.SearchRestart},
			PerCPU: []model.CPUCounters{
				{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drop0, model.SearchRestart: restart})},
				{CPU: 1, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drop1})},
			}}
	}
	prev := model.Sample{Time: t0, CTStats: stats(100, 50, 10),
		CPU:   []model.CPUTimes{{CPU: 0, User: 10, Idle: 90}, {CPU: 1, User: 0, Idle: 100}},
		Disks: []model.DiskIO{{Name: "vda", Reads: 10, Writes: 20, BusyMillis: 1000}},
		TCP:   model.TCP{SynRetrans: 5, ActiveOpens: 100, PassiveOpens: 100, ListenOverflows: 9}}
	cur := model.Sample{Time: t0.Add(2 * time.Second), CTStats: stats(5037, 50, 4),
		CPU:   []model.CPUTimes{{CPU: 0, User: 11, System: 0.5, SoftIRQ: 0.1, Idle: 90.4}, {CPU: 1, User: 0, Idle: 102}},
		Disks: []model.DiskIO{{Name: "vda", Reads: 10, Writes: 220, BusyMillis: 2000}, {Name: "new", Reads: 5}},
		TCP:   model.TCP{SynRetrans: 65, ActiveOpens: 170, PassiveOpens: 170, ListenOverflows: 9}}
	r := model.Delta(prev, cur)

	if r.CT[0].Values.Get(model.Drop) != 4937 || r.CT[1].Values.Get(model.Drop) != 0 || r.CTTotal.Get(model.Drop) != 4937 {
		t.Errorf("drop deltas %v total %d, want 4937/0 and 4937", r.CT, r.CTTotal.Get(model.Drop))
	}
	if r.CTTotal.Get(model.SearchRestart) != 0 {
		t.Errorf("a counter that went backwards gave %d, want 0", r.CTTotal.Get(model.SearchRestart))
	}
	if got := r.CPU[0]; math.Abs(got.User-50) > 0.01 || math.Abs(got.System-25) > 0.01 || math.Abs(got.Idle-20) > 0.01 {
		t.Errorf("cpu0 use %+v, want user 50 system 25 idle 20", got)
	}
	if got := r.CPUAll.Busy(); math.Abs(got-40) > 0.01 {
		t.Errorf("all CPUs busy %.2f %%, want 40 %%", got)
	}
	if len(r.Disks) != 1 || r.Disks[0].WritesPS != 100 || r.Disks[0].Util != 50 {
		t.Errorf("disk rates %+v, want vda 100 writes/s at 50 %%", r.Disks)
	}
	// 35 active and 35 passive opens a second are 35 entries, not 70:
	// without events, a connection with both ends here is counted once.
	if r.SynRetransPS != 30 || r.NewEntriesPS() != 35 || r.Entries.Basis != model.BasisTCPOpens || r.ListenOverflowsPS != 0 {
		t.Errorf("tcp rates syn %v new %v (%q) overflows %v, want 30, 35 (tcp-opens), 0", r.SynRetransPS, r.NewEntriesPS(), r.Entries.Basis, r.ListenOverflowsPS)
	}
}

func TestAnalyzerSeesThePinnedEpisode(t *testing.T) {
	a := NewAnalyzer(10)
	t0 := time.Unix(0, 0)
	counts := []uint64{525, 952, 2807, 4096, 4096, 4096}
	var drops uint64
	var last Frame
	for i, c := range counts {
		if c == 4096 {
			drops += 1000
		}
		s := table(c, c, 4096)
		s.Time = t0.Add(time.Duration(i) * time.Second)
		s.CTStats = model.CTStats{Reported: []model.Counter{model.Drop}, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}}
		last = a.Add(s)
	}
	if last.Verdict().Kind != verdict.TableFull || !last.Pinned {
		t.Fatalf("verdict %v pinned %v, want TABLE FULL and pinned", last.Verdict(), last.Pinned)
	}
	eps := a.Episodes()
	if len(eps) != 1 || eps[0].Drops != 3000 || eps[0].Duration() != 3*time.Second {
		t.Errorf("episodes %+v, want one of 3 s with 3,000 drops", eps)
	}
	if a.Frames().Len() != len(counts) {
		t.Errorf("history %d frames, want %d", a.Frames().Len(), len(counts))
	}
}

// TestDeltaPairsRowsByID: rows are paired by CPU and disk, whatever their
// order and whichever are missing on one side.
func TestDeltaPairsRowsByID(t *testing.T) {
	prev := model.Sample{Time: time.Unix(0, 0), CTStats: model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{{CPU: 0}, {CPU: 1}, {CPU: 2}}},
		CPU:   []model.CPUTimes{{CPU: 0, Idle: 100}, {CPU: 1, Idle: 100}, {CPU: 2, Idle: 100}},
		Disks: []model.DiskIO{{Name: "a"}, {Name: "b"}}}
	cur := model.Sample{Time: time.Unix(1, 0), CTStats: model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{
		{CPU: 2, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 7})}, {CPU: 3, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 9})}, {CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 1})}}},
		CPU:   []model.CPUTimes{{CPU: 2, Idle: 100, User: 100}, {CPU: 0, Idle: 200}, {CPU: 9, User: 5}},
		Disks: []model.DiskIO{{Name: "b", Reads: 10}, {Name: "c", Reads: 99}, {Name: "a", Reads: 1}}}
	r := model.Delta(prev, cur)
	drops := map[int]uint64{}
	for _, row := range r.CT {
		drops[row.CPU] = row.Values.Get(model.Drop)
	}
	if want := map[int]uint64{2: 7, 3: 0, 0: 1}; !maps.Equal(drops, want) {
		t.Errorf("drops by CPU %v, want %v (a CPU new in this sample has no delta)", drops, want)
	}
	if len(r.CPU) != 2 || r.CPU[0].CPU != 2 || r.CPU[0].User != 100 || r.CPU[1].CPU != 0 || r.CPU[1].Idle != 100 {
		t.Errorf("CPU use %+v, want CPU 2 all user, CPU 0 all idle, CPU 9 left out", r.CPU)
	}
	if len(r.Disks) != 2 || r.Disks[0].Name != "b" || r.Disks[0].ReadsPS != 10 || r.Disks[1].Name != "a" || r.Disks[1].ReadsPS != 1 {
		t.Errorf("disks %+v, want b at 10/s and a at 1/s, c left out", r.Disks)
	}
}
