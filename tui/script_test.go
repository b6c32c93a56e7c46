package tui

import (
	"os"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/model"
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	time.Local = time.UTC
	os.Exit(m.Run())
}

var scriptStart = time.Date(2026, 7, 26, 20, 53, 34, 0, time.UTC)

// incident builds the write-up's minute: a baseline of 525 entries, the
// climb, then the table pinned at 4,096 with drops on CPU 0, SYNs
// retransmitted, CPU idle, disk quiet.
func incident(n int) []model.Sample {
	counts := []uint64{525, 525, 525, 525, 525, 530, 952, 1678, 2807, 3936}
	var out []model.Sample
	var drops, early, syn, opens, cpuT uint64
	for i := range n {
		c := uint64(4096)
		if i < len(counts) {
			c = counts[i]
		}
		if c == 4096 {
			drops += 540
			early += 7
			syn += 30
		}
		opens += 33
		cpuT += 100
		s := model.Sample{
			Time:     scriptStart.Add(time.Duration(i) * time.Second),
			Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: c, Peak: c, Max: 4096,
				Buckets: 4096, TimeWaitHold: 120},
			CTStats: model.CTStats{Source: "procfs", Reported: model.AllCounters, PerCPU: []model.CPUCounters{
				{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops, model.EarlyDrop: early, model.SearchRestart: 284734 + uint64(i)})},
			}},
			CPU:   []model.CPUTimes{{CPU: 0, User: float64(cpuT) * 0.03 / 100, System: float64(cpuT) * 0.01 / 100, Idle: float64(cpuT) * 0.96 / 100}},
			Disks: []model.DiskIO{{Name: "vda", Reads: 20616, Writes: 2633}},
			TCP: model.TCP{SynRetrans: syn, ActiveOpens: 100, PassiveOpens: 100 + opens, OutRsts: 2,
				TimeWait: 3900, Established: 8, PortRange: [2]uint64{32768, 60999}},
			Kernel: model.KernelLog{Readable: true},
		}
		if c == 4096 && i == len(counts) {
			s.Kernel.Lines = []model.KernelLine{{Time: s.Time, Text: "nf_conntrack: nf_conntrack: table full, dropping packet"}}
			s.Kernel.Suppressed = 212
		}
		out = append(out, s)
	}
	return out
}

// scriptFeed hands out scripted samples, then blocks until the test ends.
type scriptFeed struct {
	host     model.Host
	samples  chan model.Sample
	done     chan struct{}
	interval time.Duration
}

func newScriptFeed(t *testing.T, samples []model.Sample) *scriptFeed {
	f := &scriptFeed{host: model.Host{Name: "garage", Kernel: "5.15.0-fixture", CPUs: 1, MemTotal: 512 << 20, Source: "script"},
		samples: make(chan model.Sample, len(samples)), done: make(chan struct{})}
	for _, s := range samples {
		f.samples <- s
	}
	t.Cleanup(func() { close(f.done) })
	return f
}

func (f *scriptFeed) Host() model.Host { return f.host }

func (f *scriptFeed) Next() (model.Sample, error) {
	select {
	case s := <-f.samples:
		return s, nil
	case <-f.done:
		return model.Sample{}, os.ErrClosed
	}
}

func (f *scriptFeed) SetInterval(d time.Duration) { f.interval = d }
