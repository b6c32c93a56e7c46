package model

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

// PeakDownsample shrinks values to at most n points, each the maximum of
// the values it replaces, so that narrowing a chart never hides a peak.
func PeakDownsample(values []float64, n int) []float64 {
	if n <= 0 {
		return nil
	}
	if len(values) <= n {
		return append([]float64(nil), values...)
	}
	out := make([]float64, n)
	for i := range n {
		lo := i * len(values) / n
		hi := (i + 1) * len(values) / n
		m := values[lo]
		for _, v := range values[lo+1 : hi] {
			m = max(m, v)
		}
		out[i] = m
	}
	return out
}
