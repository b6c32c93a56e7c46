package chart

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

var scriptStart = time.Date(2026, 7, 26, 20, 53, 34, 0, time.UTC)

// incidentFrames are the last n frames of the write-up's incident of
// length samples at 1 s, through the analyzer: a baseline of 525, the
// climb, then pinned at 4,096 with drops.
func incidentFrames(length, n int) []diagnose.Frame {
	counts := []uint64{525, 525, 525, 525, 525, 530, 952, 1678, 2807, 3936}
	an := diagnose.NewAnalyzer(length)
	var drops uint64
	for i := range length {
		c := uint64(4096)
		if i < len(counts) {
			c = counts[i]
		}
		if c == 4096 {
			drops += 540
		}
		an.Add(model.Sample{Time: scriptStart.Add(time.Duration(i) * time.Second), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: c, Peak: c, Max: 4096, Buckets: 4096, TimeWaitHold: 120},
			CTStats: model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{
				{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}}})
	}
	fr := an.Frames()
	var out []diagnose.Frame
	for i := max(0, fr.Len()-n); i < fr.Len(); i++ {
		out = append(out, fr.At(i))
	}
	return out
}
