package sources

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/tablefull/tablefull/model"
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
	hold model.PeakHold
	f    *os.File
	fd   uintptr
	buf  [32]byte
}

// NewPeakSampler opens path; it returns ErrUnavailable when the file
// does not exist (conntrack not loaded).
func NewPeakSampler(path string) (*PeakSampler, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, classify(fmt.Errorf("open %s: %w", path, err))
	}
	return &PeakSampler{f: f, fd: f.Fd()}, nil
}

// Poll takes one reading now. The file stays open and is re-read from
// offset 0 with one pread. The pread is a raw system call: it never blocks
// (a sysctl or regular file), and the runtime's bookkeeping for an
// ordinary one wakes Go's sysmon thread, which on a small VM cost several
// extra context switches per poll, ten times a second.
func (p *PeakSampler) Poll() {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_PREAD64, p.fd,
		uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)), 0, 0, 0)
	n := int(r)
	if errno != 0 || n <= 0 {
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
	p.hold.Observe(v)
}

// Take returns the peak since the last Take, never below current.
func (p *PeakSampler) Take(current uint64) uint64 {
	return p.hold.Take(current)
}

// Close releases the file.
func (p *PeakSampler) Close() error { return p.f.Close() }
