package ctnetlink

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablefull/tablefull/model/entry"
)

// Follower follows the entries a filter matches as the kernel makes and
// ends them, through the NEW and DESTROY groups of the namespace it was
// started in: the entries panel's live mode. Memory is fixed (a ring of
// entry.MaxFollowed events); it needs CAP_NET_ADMIN.
type Follower struct {
	procRoot string
	portID   uint32
	dropsAt  uint64
	stop     *atomic.Bool
	done     chan struct{}

	mu       sync.Mutex // guards the fields below
	followed *entry.Followed
	overruns uint64
	failed   bool
}

// Follow starts following what filter matches in the caller's network
// namespace; procRoot is where /proc/net/netlink says what the socket
// dropped. Close stops it.
func Follow(procRoot string, filter entry.Filter) (*Follower, error) {
	return follow(procRoot, filter, eventsReadBuffer)
}

// follow is Follow with a receive buffer of readBuffer bytes (tests make
// it small to see events lost).
func follow(procRoot string, filter entry.Filter, readBuffer int) (*Follower, error) {
	fd, portID, err := joinEvents(readBuffer, newAndDestroy)
	if err != nil {
		return nil, err
	}
	f := &Follower{procRoot: procRoot, portID: portID, stop: new(atomic.Bool), done: make(chan struct{}),
		followed: entry.NewFollowed(filter, time.Now())}
	f.dropsAt, _ = socketDrops(procRoot, portID)
	if b, err := os.ReadFile(filepath.Join(procRoot, "sys/net/netfilter/nf_conntrack_events")); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 && n <= 2 {
			f.followed.Events = n // read in the namespace followed: /proc/sys/net is the reader's
		}
	}
	overrun, fail := socketFaults(&f.mu, &f.overruns, &f.failed)
	go receiveEvents(fd, f.stop, f.done, f.got, overrun, fail)
	return f, nil
}

// got keeps the events of one datagram.
func (f *Follower) got(b []byte) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	eachMessage(b, func(typ uint16, _ uint32, body []byte) {
		kind := int(typ) & 0xff
		if typ>>8 != ctnetlinkSubsys || (kind != ctMsgNew && kind != ctMsgDelete) {
			return
		}
		if fl, err := parseFlow(body); err == nil {
			f.followed.Add(entry.Event{At: now, Gone: kind == ctMsgDelete, Flow: fl})
		}
	})
}

// Read is what was followed so far; Failed says the socket failed, so
// nothing after it was seen.
func (f *Follower) Read() (follow entry.Follow, failed bool) {
	f.mu.Lock()
	lost := f.overruns
	f.mu.Unlock()
	if lost > 0 { // the socket's drops are read outside the lock: a file read
		lost = lostEvents(f.procRoot, f.portID, f.dropsAt, lost)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.followed.Follow(lost), f.failed
}

// Close stops following; it waits for the reader, which closes the socket.
func (f *Follower) Close() {
	if f.stop.CompareAndSwap(false, true) {
		<-f.done
	}
}
