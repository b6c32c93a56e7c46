package ctnetlink

import (
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
)

// FlushWatch counts the entries user space deletes, in bursts
// (model.FlushCounter), from the DESTROY group of the caller's network
// namespace. A socket filter passes only the events whose nlmsg_pid is a
// deleter's netlink port (the kernel's own ends carry 0), so the timeouts
// of a busy table never reach user space; the kernel still builds each
// DESTROY event while the watch listens, and with nf_conntrack_events at
// 2 it gives every new entry the event cache (entries made before the
// watch began end unreported). Memory is fixed. It needs CAP_NET_ADMIN.
type FlushWatch struct {
	stop *atomic.Bool
	done chan struct{}

	mu       sync.Mutex // guards the fields below
	counter  model.FlushCounter
	overruns uint64
	failed   bool
	// received counts the messages that reached user space: the filter's
	// work is that the kernel's own ends are not among them.
	received uint64
}

// flushReadBuffer is the watch's receive buffer: a flush of tens of
// thousands of entries within one drain of eventsBatch.
const flushReadBuffer = 8 << 20

// WatchFlushes starts watching the caller's network namespace; Close
// stops it.
func WatchFlushes() (*FlushWatch, error) {
	fd, _, err := joinEvents(flushReadBuffer, 1<<(groupCTDestroy-1))
	if err != nil {
		return nil, err
	}
	if err := attachUserDeletions(fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	w := &FlushWatch{stop: new(atomic.Bool), done: make(chan struct{})}
	overrun, fail := socketFaults(&w.mu, &w.overruns, &w.failed)
	go receiveEvents(fd, w.stop, w.done, w.got, overrun, fail)
	return w, nil
}

// attachUserDeletions attaches a classic BPF filter that keeps a message
// only when its nlmsg_pid (the header's word at offset 12) is not 0.
func attachUserDeletions(fd int) error {
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 12},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: 0, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0}, // drop
		{Code: unix.BPF_RET | unix.BPF_K, K: 0xffffffff},
	}
	if err := unix.SetsockoptSockFprog(fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}); err != nil {
		return fmt.Errorf("filter conntrack events: %w", err)
	}
	return nil
}

// got counts the user-space deletions of one datagram.
func (w *FlushWatch) got(b []byte) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	eachMessage(b, func(typ uint16, portID uint32, body []byte) {
		w.received++
		if typ>>8 != ctnetlinkSubsys || int(typ)&0xff != ctMsgDelete || portID == 0 {
			return
		}
		if f, err := parseFlow(body); err == nil {
			w.counter.Deleted(now, f.Proto, netip.AddrPortFrom(f.Dst, f.DstPort))
		}
	})
}

// Read is what the watch saw up to now: every deletion, the bursts that
// ended and the one under way.
func (w *FlushWatch) Read(now time.Time) model.Flushes {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.counter.Tick(now)
	out := model.Flushes{Watching: !w.failed, Deleted: w.counter.Deletions(), Recent: w.counter.Recent()}
	switch {
	case w.failed:
		out.Note = "the event socket failed"
	case w.overruns > 0:
		out.Note = fmt.Sprintf("events lost %d times: the counts are lower bounds", w.overruns)
	}
	return out
}

// Close stops the watch.
func (w *FlushWatch) Close() {
	w.stop.Store(true)
	<-w.done
}
