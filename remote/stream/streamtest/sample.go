// Package streamtest holds the stream's test fixtures, shared by the
// tests of the stream, the agent and the recordings.
package streamtest

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// T0 is the fixtures' first moment.
var T0 = time.UnixMilli(1785099226000)

// TwoCPUSample is a busy moment on a 2-CPU host: every field set.
func TwoCPUSample(i int) model.Sample {
	return model.Sample{
		Time: T0.Add(time.Duration(i) * time.Second), Interval: time.Second,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096, Buckets: 4096, TimeWaitHold: 120,
			Holds: model.ClassCounts{120, 120, 432000, 30, 120, 30, 600}},
		Entries: model.Entries{Source: model.EntriesEvents, Epoch: 3, New: [model.NumProtos]uint64{9000 + uint64(i), 700, 2, 0},
			Ended: model.ClassCounts{8000, 20, 1, 690}, Lost: 4,
			TopDests: []tally.Count{{Key: "tcp/3900", N: 80}}, TopSources: []tally.Count{{Key: "10.0.0.7", N: 80}}},
		CTStats: model.CTStats{Source: "procfs", Reported: model.AllCounters, PerCPU: []model.CPUCounters{
			{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 5937, model.EarlyDrop: 77, model.InsertFailed: 0, model.Invalid: 6,
				model.Error: 2, model.SearchRestart: 284734, model.ClashResolve: 1, model.ChainTooLong: 0})},
			{CPU: 1, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: 12, model.EarlyDrop: 0, model.InsertFailed: 0, model.Invalid: 0,
				model.Error: 0, model.SearchRestart: 99, model.ClashResolve: 0, model.ChainTooLong: 3})},
		}},
		CPU: []model.CPUTimes{{CPU: 0, User: 3214.12, System: 1213.5, Idle: 34780.01, IOWait: 0.4, SoftIRQ: 26.26, Steal: 1.14},
			{CPU: 1, User: 4157, System: 1510, Idle: 33306, IOWait: 2.38, SoftIRQ: 64}},
		Disks: []model.DiskIO{{Name: "vda", Reads: 20616, Writes: 2633, BusyMillis: 4232}},
		TCP: model.TCP{SynRetrans: 365, ListenOverflows: 1, ListenDrops: 2, ActiveOpens: 7409, PassiveOpens: 7409, OutRsts: 4,
			TimeWait: 3900, Established: 8, PortRange: [2]uint64{32768, 60999}},
		Kernel: model.KernelLog{Readable: true, Suppressed: 212, Lines: []model.KernelLine{
			{Time: T0, Text: "nf_conntrack: nf_conntrack: table full in netns 4026532177, dropping packet", NetNS: 4026532177, NetNSName: "lab"}}},
		Notes: []string{"read disk sdb: gone"},
	}
}
