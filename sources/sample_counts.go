package sources

import (
	"time"

	"github.com/tablefull/tablefull/model"
)

// QuietEvery is how often a quiet feed (Live.SetQuiet) reads a whole
// sample while the table is far from its cap and drops nothing; every
// interval in between it only reads the counts (Collector.SampleCounts).
const QuietEvery = 10 * time.Second

// SampleCounts reads what an interval cannot go without when the rest of the
// sample waits: the count (into the next sample's peak), the cap and the
// per-CPU counters. It is enough for model.FastSampling to say whether
// the whole sample and the full rate are due now: near the cap, rising
// towards it, or dropping.
func (c *Collector) SampleCounts() model.Sample {
	var s model.Sample
	s.Conntrack = c.table.SampleCounts()
	if c.peak != nil && s.Conntrack.Status == model.TableTracked {
		c.peak.Observe(s.Conntrack.Count)
		s.Conntrack.Peak = s.Conntrack.Count
	}
	s.CTStats = c.readCTStats(s.Conntrack.Status)
	return s
}
