package counters

import (
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// FastRate is how often nf_conntrack_count is read between samples: 10 Hz,
// so a burst that fills the table between two display frames still shows
// as that interval's peak.
const FastRate = 100 * time.Millisecond

// PeakSampler reads one counter file on demand and holds its peak. It has
// no goroutine of its own: Live polls it from the same tick that takes the
// samples, so the process wakes once per tick, not once per timer. Poll and
// Take run on that one goroutine; it is not safe for concurrent use.
type PeakSampler struct {
	hold diagnose.PeakHold
	f    *kernelfs.OpenFile
}

// NewPeakSampler opens path; it returns ErrUnavailable when the file
// does not exist (conntrack not loaded).
func NewPeakSampler(path string) (*PeakSampler, error) {
	f := kernelfs.NewOpenFile(path, 32)
	if err := f.Open(); err != nil {
		return nil, err
	}
	return &PeakSampler{f: f}, nil
}

// Poll takes one reading now: one pread of the file NewPeakSampler opened,
// and returns it; ok is false for a failed read, which is skipped (the
// sample still reads the count itself).
func (p *PeakSampler) Poll() (v uint64, ok bool) {
	b, err := p.f.Read()
	if err != nil {
		return 0, false
	}
	if v, err = parseNumber(b); err != nil {
		return 0, false
	}
	p.hold.Observe(v)
	return v, true
}

// Take returns the peak since the last Take, never below current.
func (p *PeakSampler) Take(current uint64) uint64 {
	return p.hold.Take(current)
}

// Close releases the file.
func (p *PeakSampler) Close() error {
	p.f.Close()
	return nil
}

// Observe holds v as a reading of the counter, taken elsewhere (a glance
// of the count between whole samples).
func (p *PeakSampler) Observe(v uint64) { p.hold.Observe(v) }
