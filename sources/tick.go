package sources

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pace is the feed's one periodic wake-up: C delivers a tick each period
// (a tick the reader has not taken yet is not doubled, as time.Ticker's).
type pace interface {
	C() <-chan time.Time
	// Reset restarts the period from now.
	Reset(d time.Duration)
	Stop()
}

// newPace is a timerfd read through the poller, or a Go ticker where the
// kernel gives no timerfd.
//
// Not a Go timer, because Go's monitor thread (sysmon) sleeps until the
// process's next timer: each tick of a time.Ticker woke it too, and it
// then slept in short steps and at times signalled the running thread to
// preempt it, a few more context switches a tick. With no Go timer it
// sleeps a minute at a time. An exporter far from its cap, which wakes
// once a second to glance at the count, spent about a third of its CPU
// in that thread (docs/development.md).
func newPace(d time.Duration) pace {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return goPace{time.NewTicker(d)}
	}
	p := &fdPace{f: os.NewFile(uintptr(fd), "timerfd"), c: make(chan time.Time, 1)}
	if p.arm(d) != nil {
		p.f.Close()
		return goPace{time.NewTicker(d)}
	}
	go p.run()
	return p
}

// fdPace ticks from a timerfd: its reads park on the poller, which
// wakes only when the kernel's timer fires.
type fdPace struct {
	f *os.File
	c chan time.Time
}

func (p *fdPace) C() <-chan time.Time { return p.c }

// Reset re-arms the timer: the first tick d from now, then every d.
func (p *fdPace) Reset(d time.Duration) { p.arm(d) }

// Stop closes the timer; its reader ends.
func (p *fdPace) Stop() { p.f.Close() }

func (p *fdPace) arm(d time.Duration) error {
	ts := unix.NsecToTimespec(int64(max(d, time.Millisecond)))
	conn, err := p.f.SyscallConn()
	if err != nil {
		return err
	}
	var armErr error
	if err := conn.Control(func(fd uintptr) {
		armErr = unix.TimerfdSettime(int(fd), 0, &unix.ItimerSpec{Interval: ts, Value: ts}, nil)
	}); err != nil {
		return err
	}
	return armErr
}

// run turns each expiry into a tick until the timer is closed. The read
// is a raw system call, waited for on the poller: Go's system-call entry
// wakes a sleeping sysmon, which is what the timerfd is for.
func (p *fdPace) run() {
	conn, err := p.f.SyscallConn()
	if err != nil {
		return
	}
	var expiries [8]byte
	read := func(fd uintptr) bool {
		_, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&expiries[0])), uintptr(len(expiries)))
		return errno != unix.EAGAIN // not yet expired: wait on the poller
	}
	for {
		if conn.Read(read) != nil {
			return // closed
		}
		select {
		case p.c <- time.Now():
		default: // the last tick is still waiting: do not queue another
		}
	}
}

// goPace is a time.Ticker as a pace.
type goPace struct{ t *time.Ticker }

func (g goPace) C() <-chan time.Time   { return g.t.C }
func (g goPace) Reset(d time.Duration) { g.t.Reset(d) }
func (g goPace) Stop()                 { g.t.Stop() }
