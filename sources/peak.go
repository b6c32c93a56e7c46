package sources

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// FastRate is how often the peak sampler reads nf_conntrack_count between
// samples: 10 Hz, so a burst that fills the table between two display
// frames still shows as that interval's peak.
const FastRate = 100 * time.Millisecond

// PeakSampler polls one counter file at FastRate and holds its peak. It
// keeps the file open and re-reads it from offset 0 (sysctl files support
// pread), which costs one system call per poll.
type PeakSampler struct {
	mu      sync.Mutex
	hold    model.PeakHold
	f       *os.File
	buf     [32]byte
	stop    chan struct{}
	done    chan struct{}
	started bool
}

// NewPeakSampler opens path; it returns ErrUnavailable when the file
// does not exist (conntrack not loaded).
func NewPeakSampler(path string) (*PeakSampler, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, classify(fmt.Errorf("open %s: %w", path, err))
	}
	return &PeakSampler{f: f, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// Start polls in the background until Stop.
func (p *PeakSampler) Start() {
	p.started = true
	go func() {
		defer close(p.done)
		t := time.NewTicker(FastRate)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.Poll()
			}
		}
	}()
}

// Poll takes one reading now.
func (p *PeakSampler) Poll() {
	n, err := p.f.ReadAt(p.buf[:], 0)
	if n == 0 && err != nil {
		return
	}
	end := n
	for end > 0 && (p.buf[end-1] == '\n' || p.buf[end-1] == ' ') {
		end--
	}
	v, err := strconv.ParseUint(string(p.buf[:end]), 10, 64)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.hold.Observe(v)
	p.mu.Unlock()
}

// Take returns the peak since the last Take, never below current.
func (p *PeakSampler) Take(current uint64) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hold.Take(current)
}

// Stop ends the polling and closes the file.
func (p *PeakSampler) Stop() {
	select {
	case <-p.stop:
	default:
		close(p.stop)
		if p.started {
			<-p.done
		}
	}
	p.f.Close()
}
