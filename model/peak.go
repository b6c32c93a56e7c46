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
