package diagnose

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
)

// PeakHold remembers the highest value observed since it was last taken, so
// that a burst between two display frames is not lost. The zero value is
// ready to use.
type PeakHold struct {
	peak uint64
	seen bool
}

// Observe records one fast sample.
func (p *PeakHold) Observe(v uint64) {
	if !p.seen || v > p.peak {
		p.peak = v
	}
	p.seen = true
}

// Take returns the peak since the last Take and starts a new interval. When
// nothing was observed it returns fallback.
func (p *PeakHold) Take(fallback uint64) uint64 {
	if !p.seen {
		return fallback
	}
	v := max(p.peak, fallback)
	*p = PeakHold{}
	return v
}

// Fast sampling: when the count is worth reading at 10 Hz between samples.
const (
	// FastWithinPct: the count is within reach of the cap once it passes
	// this share of max.
	FastWithinPct = 50.0
	// FastRiseFactor: a count rising by r a sample could reach the cap
	// before the next one when count + FastRiseFactor × r ≥ max.
	FastRiseFactor = 2
)

// FastSampling reports whether the count should be read at 10 Hz until the
// next sample: only while a peak between samples can matter. That is when
// the table is tracked and the count (or the interval's peak) is within
// FastWithinPct of the cap, or rising fast enough to reach it before the
// next sample, or the last interval dropped packets. Otherwise once a
// sample is enough: a table far from its cap and not racing towards it
// has no burst to catch, and an agent or exporter on every host should
// cost next to nothing.
func FastSampling(prev, cur model.Sample) bool {
	c := cur.Conntrack
	if c.Status != model.TableTracked || c.Max == 0 {
		return false
	}
	high := max(c.Count, c.Peak)
	if arith.Percent(high, c.Max) >= FastWithinPct {
		return true
	}
	if prev.Conntrack.Status == model.TableTracked && high > prev.Conntrack.Count &&
		c.Count+FastRiseFactor*(high-prev.Conntrack.Count) >= c.Max {
		return true
	}
	for _, ctr := range []model.Counter{model.Drop, model.EarlyDrop} {
		if cur.CTStats.Total(ctr) > prev.CTStats.Total(ctr) {
			return true
		}
	}
	return false
}
