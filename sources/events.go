package sources

import (
	"bufio"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
)

// ctnetlink multicast groups and message types
// (linux/netfilter/nfnetlink_compat.h, nfnetlink_conntrack.h).
const (
	groupCTNew     = 1 // NFNLGRP_CONNTRACK_NEW
	groupCTDestroy = 3 // NFNLGRP_CONNTRACK_DESTROY
	ctMsgNew       = 0 // IPCTNL_MSG_CT_NEW
	ctMsgDelete    = 2 // IPCTNL_MSG_CT_DELETE
	// eventsReadBuffer is the socket's receive buffer: at 10,000 events/s
	// of ~200 bytes it holds a second of backlog.
	eventsReadBuffer = 4 << 20
)

// EntryEvents counts conntrack entries where the kernel makes and ends
// them: the NEW and DESTROY multicast groups of ctnetlink (UPDATE, ~4
// events a connection, is not joined). It needs CAP_NET_ADMIN and counts
// the caller's network namespace. Memory is fixed: counters and two
// bounded sketches that each Read empties.
type EntryEvents struct {
	procRoot string
	epochs   atomic.Uint64

	mu      sync.Mutex
	conn    *netlink.Conn
	done    chan struct{}
	counts  model.Entries
	dests   model.Sketch[uint32]
	sources model.Sketch[netip.Addr]
	// overruns counts ENOBUFS: the kernel dropped events for us.
	overruns uint64
	dropsAt  uint64 // the socket's drops in /proc/net/netlink at start
}

// NewEntryEvents counts events; procRoot is where /proc/net/netlink is
// read for the socket's drops.
func NewEntryEvents(procRoot string) *EntryEvents { return &EntryEvents{procRoot: procRoot} }

// Start subscribes; counting starts from zero in a new epoch. It is a
// no-op while subscribed. ErrPermission means no CAP_NET_ADMIN.
func (e *EntryEvents) Start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn != nil {
		return nil
	}
	c, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return fmt.Errorf("dial ctnetlink: %w", err)
	}
	for _, g := range []uint32{groupCTNew, groupCTDestroy} {
		if err := c.JoinGroup(g); err != nil {
			c.Close()
			if errors.Is(err, syscall.EPERM) {
				return fmt.Errorf("join conntrack events: %w (CAP_NET_ADMIN)", ErrPermission)
			}
			return fmt.Errorf("join conntrack events: %w", err)
		}
	}
	setReadBuffer(c, eventsReadBuffer)
	e.conn, e.done = c, make(chan struct{})
	e.counts = model.Entries{Source: model.EntriesEvents, Epoch: e.epochs.Add(1)}
	e.overruns = 0
	e.dropsAt, _ = socketDrops(e.procRoot, c.PID())
	go e.receive(c, e.done)
	return nil
}

// setReadBuffer asks for n bytes of receive buffer, past rmem_max when
// privileged (SO_RCVBUFFORCE), else as much as SO_RCVBUF allows.
func setReadBuffer(c *netlink.Conn, n int) {
	if rc, err := c.SyscallConn(); err == nil {
		var serr error
		if err := rc.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, n)
		}); err == nil && serr == nil {
			return
		}
	}
	_ = c.SetReadBuffer(n)
}

// Stop unsubscribes; Read then returns the counts of the last epoch.
func (e *EntryEvents) Stop() {
	e.mu.Lock()
	c, done := e.conn, e.done
	e.conn = nil
	e.mu.Unlock()
	if c != nil {
		c.Close()
		<-done
	}
}

// On reports whether it is subscribed.
func (e *EntryEvents) On() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.conn != nil
}

func (e *EntryEvents) receive(c *netlink.Conn, done chan struct{}) {
	defer close(done)
	for {
		msgs, err := c.Receive()
		if err != nil {
			if errors.Is(err, unix.ENOBUFS) {
				e.mu.Lock()
				e.overruns++
				e.mu.Unlock()
				continue
			}
			return // closed by Stop, or the socket failed: Read's epoch stays
		}
		e.mu.Lock()
		for _, m := range msgs {
			e.countLocked(m)
		}
		e.mu.Unlock()
	}
}

// countLocked counts one event message; a malformed one is skipped.
func (e *EntryEvents) countLocked(m netlink.Message) {
	kind := int(m.Header.Type) & 0xff
	if kind != ctMsgNew && kind != ctMsgDelete {
		return
	}
	f, err := ParseFlow(m)
	if err != nil {
		return
	}
	if kind == ctMsgDelete {
		e.counts.Ended[model.ClassOf(f)]++
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
	if e.overruns > 0 && e.conn != nil {
		lost := e.overruns
		if d, err := socketDrops(e.procRoot, e.conn.PID()); err == nil && d >= e.dropsAt {
			lost = max(lost, d-e.dropsAt)
		}
		e.counts.Lost, out.Lost = lost, lost
	}
	return out
}

// socketDrops reads a NETLINK_NETFILTER socket's drop count from
// /proc/net/netlink ("sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode").
func socketDrops(procRoot string, pid uint32) (uint64, error) {
	f, err := os.Open(filepath.Join(procRoot, "net", "netlink"))
	if err != nil {
		return 0, fmt.Errorf("read netlink sockets: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := strconv.FormatUint(uint64(pid), 10)
	for sc.Scan() {
		col := strings.Fields(sc.Text())
		if len(col) >= 9 && col[1] == strconv.Itoa(unix.NETLINK_NETFILTER) && col[2] == want {
			return strconv.ParseUint(col[8], 10, 64)
		}
	}
	return 0, fmt.Errorf("netlink socket %d not listed", pid)
}
