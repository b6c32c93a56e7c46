package ctnetlink

import (
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// ctnetlink multicast groups and message types
// (linux/netfilter/nfnetlink_compat.h, nfnetlink_conntrack.h).
const (
	groupCTNew     = 1 // NFNLGRP_CONNTRACK_NEW
	groupCTDestroy = 3 // NFNLGRP_CONNTRACK_DESTROY
	ctMsgNew       = 0 // IPCTNL_MSG_CT_NEW
	ctMsgDelete    = 2 // IPCTNL_MSG_CT_DELETE
	// ctnetlinkSubsys is NFNL_SUBSYS_CTNETLINK, a message type's high byte.
	ctnetlinkSubsys = 1
	// eventsReadBuffer is the socket's receive buffer: at 10,000 events/s
	// of ~200 bytes it holds a second of backlog.
	eventsReadBuffer = 4 << 20
)

// EntryEvents counts conntrack entries where the kernel makes and ends
// them: the NEW and DESTROY multicast groups of ctnetlink (UPDATE, ~4
// events a connection, is not joined). It needs CAP_NET_ADMIN and counts
// the caller's network namespace. Memory is fixed: counters, one receive
// buffer and two bounded sketches that each Read empties. The socket is
// drained without blocking every eventsBatch, each event parsed in place:
// at thousands of events a second, a wake-up per event (a blocking read,
// or the Go poller) and a decoder's allocations would cost more than the
// counting; the socket's buffer holds a batch many times over.
type EntryEvents struct {
	procRoot string
	epochs   atomic.Uint64
	// readBuffer is the socket's receive buffer (eventsReadBuffer; tests
	// make it small to see events lost).
	readBuffer int

	mu      sync.Mutex // guards every field below
	fd      int        // -1 when not subscribed
	portID  uint32
	stop    *atomic.Bool
	done    chan struct{}
	counts  model.Entries
	dests   tally.Sketch[uint32]
	sources tally.Sketch[netip.Addr]
	// overruns counts ENOBUFS: the kernel dropped events for us.
	overruns uint64
	dropsAt  uint64 // the socket's drops in /proc/net/netlink at start
}

// eventsBatch is how long the reader sleeps once the socket is drained.
const eventsBatch = 20 * time.Millisecond

// NewEntryEvents counts events; procRoot is where /proc/net/netlink is
// read for the socket's drops.
func NewEntryEvents(procRoot string) *EntryEvents {
	return &EntryEvents{procRoot: procRoot, fd: -1, readBuffer: eventsReadBuffer}
}

// Start subscribes; counting starts from zero in a new epoch. It is a
// no-op while subscribed. ErrPermission means no CAP_NET_ADMIN.
func (e *EntryEvents) Start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fd >= 0 {
		return nil
	}
	fd, portID, err := joinEvents(e.readBuffer, newAndDestroy)
	if err != nil {
		return err
	}
	e.portID = portID
	e.fd, e.stop, e.done = fd, new(atomic.Bool), make(chan struct{})
	e.counts = model.Entries{Source: model.EntriesEvents, Epoch: e.epochs.Add(1), EvictedUnknown: !e.destroyHasTimeout()}
	e.overruns = 0
	e.dropsAt, _ = socketDrops(e.procRoot, e.portID)
	go e.receive(fd, e.stop, e.done)
	return nil
}

// destroyHasTimeout reports whether this kernel's DESTROY events carry
// the time left on the entry (CTA_TIMEOUT, since 5.11): without it no
// event tells an eviction from an entry that ran out.
func (e *EntryEvents) destroyHasTimeout() bool {
	b, err := os.ReadFile(kernelfs.SysctlPath(e.procRoot, "kernel.osrelease"))
	return err == nil && model.KernelAtLeast(string(b), 5, 11)
}

// Stop unsubscribes; Read then returns the counts of the last epoch.
func (e *EntryEvents) Stop() {
	e.mu.Lock()
	stop, done := e.stop, e.done
	subscribed := e.fd >= 0
	e.fd = -1
	e.mu.Unlock()
	if subscribed {
		stop.Store(true)
		<-done // the reader closes the socket
	}
}

// On reports whether it is subscribed.
func (e *EntryEvents) On() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fd >= 0
}

func (e *EntryEvents) receive(fd int, stop *atomic.Bool, done chan struct{}) {
	receiveEvents(fd, stop, done, func(b []byte) {
		e.mu.Lock()
		eachMessage(b, e.countOneLocked)
		e.mu.Unlock()
	}, func() {
		e.mu.Lock()
		e.overruns++
		e.mu.Unlock()
	}, func() { // the socket failed: not subscribed any more, so no sample reads stale counts as counted
		e.mu.Lock()
		if e.fd == fd {
			e.fd = -1
		}
		e.mu.Unlock()
	})
}

// countOneLocked counts one event; portID is the message's nlmsg_pid,
// the deleter's netlink port when user space deleted the entry and 0
// when the kernel ended it.
func (e *EntryEvents) countOneLocked(typ uint16, portID uint32, body []byte) {
	kind := int(typ) & 0xff
	if typ>>8 != ctnetlinkSubsys || (kind != ctMsgNew && kind != ctMsgDelete) {
		return
	}
	f, err := parseFlow(body)
	if err != nil {
		return
	}
	if kind == ctMsgDelete {
		cl := model.ClassOf(f)
		e.counts.Ended[cl]++
		if portID == 0 && f.Timeout > 0 { // the kernel ended it with time left: evicted
			e.counts.Evicted[cl]++
		}
		return
	}
	e.counts.New[model.ProtoOf(f.Proto)]++
	e.dests.Add(uint32(f.Proto)<<16 | uint32(f.DstPort))
	if f.Src.IsValid() {
		e.sources.Add(f.Src)
	}
}

// Read returns the counters and the interval's top lists, which it
// empties. Lost is read from the socket's drops when the kernel said it
// dropped events, at least one per overrun.
func (e *EntryEvents) Read() model.Entries {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.counts
	out.TopDests = e.dests.Top(model.MaxEntryTops, func(k uint32) string { return model.DestKey(uint8(k>>16), uint16(k)) })
	out.TopSources = e.sources.Top(model.MaxEntryTops, netip.Addr.String)
	if e.overruns > 0 && e.fd >= 0 {
		lost := lostEvents(e.procRoot, e.portID, e.dropsAt, e.overruns)
		e.counts.Lost, out.Lost = lost, lost
	}
	return out
}
