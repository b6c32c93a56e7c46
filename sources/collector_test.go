package sources

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// fixedNetlink stands in for ctnetlink in fixture tests, so they do not
// read the real kernel.
type fixedNetlink struct {
	stats model.CTStats
	err   error
}

func (f fixedNetlink) Read() (model.CTStats, error) { return f.stats, f.err }

var fixtureTime = time.Date(2026, 7, 26, 20, 53, 46, 0, time.UTC)

func fixtureCollector(t *testing.T, scenario string, nl ctStatReader) *Collector {
	t.Helper()
	root := filepath.Join("..", "testdata", "hosts", scenario)
	c, err := NewCollector(kernelfs.Roots{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Dev: filepath.Join(root, "dev"), Run: filepath.Join(root, "run")})
	if err != nil {
		t.Fatalf("NewCollector(%s): %v", scenario, err)
	}
	c.ctNL = nl
	c.kmsg.Monotonic = func() time.Duration { return 10 * time.Second }
	t.Cleanup(func() { c.Close() })
	return c
}

// TestFixtures compares a whole sample of each fixture host with its golden
// file (go test ./sources -update rewrites them).
func TestFixtures(t *testing.T) {
	denied := fixedNetlink{err: kernelfs.ErrPermission}
	for _, scenario := range []string{"healthy", "table-pinned", "stats-missing", "module-absent", "one-cpu", "old-columns"} {
		t.Run(scenario, func(t *testing.T) {
			c := fixtureCollector(t, scenario, denied)
			out := struct {
				Host   model.Host   `json:"host"`
				Sample model.Sample `json:"sample"`
			}{c.Host(), c.Sample(fixtureTime, time.Second)}
			b, err := json.MarshalIndent(out, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, append(b, '\n'))
		})
	}
}

func TestFixtureMeanings(t *testing.T) {
	denied := fixedNetlink{err: kernelfs.ErrPermission}
	t.Run("table pinned: per-CPU drops by header name", func(t *testing.T) {
		s := fixtureCollector(t, "table-pinned", denied).Sample(fixtureTime, time.Second)
		if s.Conntrack.Count != 4096 || s.Conntrack.Max != 4096 || s.Conntrack.Status != model.TableTracked {
			t.Errorf("conntrack %+v, want tracked 4096/4096", s.Conntrack)
		}
		if len(s.CTStats.PerCPU) != 4 {
			t.Fatalf("%d CPU rows, want 4", len(s.CTStats.PerCPU))
		}
		row := s.CTStats.PerCPU[0].Values
		if row.Get(model.Drop) != 5937 || row.Get(model.EarlyDrop) != 77 || row.Get(model.SearchRestart) != 284734 || row.Get(model.Error) != 2 {
			t.Errorf("cpu0 %v, want drop 5937 early_drop 77 search_restart 284734 error 2", row)
		}
		if got := s.CTStats.PerCPU[3].Values.Get(model.ChainTooLong); got != 3 {
			t.Errorf("cpu3 chaintoolong %d, want 3", got)
		}
		if s.TCP.SynRetrans != 365 || s.TCP.TimeWait != 3900 || s.TCP.PortRange != [2]uint64{32768, 60999} {
			t.Errorf("tcp %+v, want 365 SYN retransmits, 3900 TIME_WAIT, ports 32768-60999", s.TCP)
		}
		if len(s.Kernel.Lines) != 2 || s.Kernel.Lines[1].NetNS != 4026532177 || s.Kernel.Suppressed != 212 {
			t.Errorf("kernel log %+v, want 2 table-full lines, the second in netns 4026532177, 212 suppressed", s.Kernel)
		}
		if want := fixtureTime.Add(-5 * time.Second); !s.Kernel.Lines[0].Time.Equal(want) {
			t.Errorf("first line at %v, want %v (5 s after boot, now 10 s after boot)", s.Kernel.Lines[0].Time, want)
		}
	})
	t.Run("old column set: no clash_resolve or chaintoolong", func(t *testing.T) {
		s := fixtureCollector(t, "old-columns", denied).Sample(fixtureTime, time.Second)
		if s.CTStats.Reports(model.ClashResolve) || s.CTStats.Reports(model.ChainTooLong) || !s.CTStats.Reports(model.Drop) {
			t.Errorf("reported %v: want drop but neither clash_resolve nor chaintoolong", s.CTStats.Reported)
		}
		if got := s.CTStats.PerCPU[0].Values.Get(model.InsertFailed); got != 1 {
			t.Errorf("insert_failed %d, want 1 (not shifted by the old columns)", got)
		}
	})
	t.Run("stats file missing falls back to ctnetlink", func(t *testing.T) {
		want := model.CTStats{Source: "ctnetlink", Reported: []model.Counter{model.Drop},
			PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 9})}}}
		s := fixtureCollector(t, "stats-missing", fixedNetlink{stats: want}).Sample(fixtureTime, time.Second)
		if s.CTStats.Source != "ctnetlink" || s.CTStats.Total(model.Drop) != 9 {
			t.Errorf("stats %+v, want the ctnetlink ones", s.CTStats)
		}
		s = fixtureCollector(t, "stats-missing", denied).Sample(fixtureTime, time.Second)
		if s.CTStats.Note == "" || len(s.CTStats.PerCPU) != 0 {
			t.Errorf("unprivileged fallback gave %+v, want a note and no rows", s.CTStats)
		}
	})
	t.Run("module absent: status says so, the rest works", func(t *testing.T) {
		s := fixtureCollector(t, "module-absent", denied).Sample(fixtureTime, time.Second)
		if s.Conntrack.Status != model.TableNoModule || len(s.CPU) != 2 || len(s.Disks) != 1 {
			t.Errorf("status %q, %d cpus, %d disks; want no-module, 2, 1", s.Conntrack.Status, len(s.CPU), len(s.Disks))
		}
		if s.Kernel.Readable {
			t.Errorf("kernel log readable without a kmsg file")
		}
	})
}
