package ctnetlink

import (
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestEntryEventsCount: every connection in the namespace is one NEW
// event, counted as TCP, and its destination is the top one.
func TestEntryEventsCount(t *testing.T) {
	ns, addr := nstest.Tracked(t)
	ev := NewEntryEvents("/proc")
	if err := ns.Do(ev.Start); err != nil {
		t.Fatal(err)
	}
	defer ev.Stop()
	nstest.Connect(t, ns, addr, 300)
	time.Sleep(3 * eventsBatch)
	e := ev.Read()
	if !e.Counted() || e.New[model.ProtoTCP] != 300 || e.Lost != 0 {
		t.Errorf("300 connections counted as %+v", e)
	}
	_, port, _ := net.SplitHostPort(addr)
	if len(e.TopDests) == 0 || e.TopDests[0] != (tally.Count{Key: "tcp/" + port, N: 300}) {
		t.Errorf("top destinations %+v, want tcp/%s 300", e.TopDests, port)
	}
	if again := ev.Read(); len(again.TopDests) != 0 || again.New != e.New {
		t.Errorf("a second read: tops %+v (want emptied), counts %v (want kept)", again.TopDests, again.New)
	}
}

// TestEntryEventsLost: a reader that falls behind a small socket buffer
// loses events, and says so.
func TestEntryEventsLost(t *testing.T) {
	ns, addr := nstest.Tracked(t)
	ev := NewEntryEvents("/proc")
	ev.readBuffer = 4096
	if err := ns.Do(ev.Start); err != nil {
		t.Fatal(err)
	}
	defer ev.Stop()
	func() {
		ev.mu.Lock()         // the reader stalls at its next datagram
		defer ev.mu.Unlock() // also when connect fails: Stop takes the lock
		nstest.Connect(t, ns, addr, 500)
	}()
	time.Sleep(3 * eventsBatch)
	e := ev.Read()
	if e.Lost == 0 || e.New[model.ProtoTCP] >= 500 {
		t.Errorf("500 connections behind a 4 KiB buffer: %d counted, %d lost", e.New[model.ProtoTCP], e.Lost)
	}
}

// TestEntryEventsEndedIsNotEvicted: on the real kernel, entries deleted
// by conntrack -D and entries that ran out of their TIME_WAIT hold end
// without being counted as evicted (the collector's evictions are the
// lab's test in cmd/tablefull, at a full table).
func TestEntryEventsEndedIsNotEvicted(t *testing.T) {
	if _, err := exec.LookPath("conntrack"); err != nil {
		t.Skip("needs conntrack")
	}
	ns, addr := nstest.Tracked(t)
	if out, err := ns.Output("sysctl", "-qw", "net.netfilter.nf_conntrack_tcp_timeout_time_wait=1"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ev := NewEntryEvents("/proc")
	if err := ns.Do(ev.Start); err != nil {
		t.Fatal(err)
	}
	defer ev.Stop()
	nstest.Connect(t, ns, addr, 50)
	time.Sleep(3 * time.Second) // their hold runs out; a dump reaps them
	ns.Output("conntrack", "-L")
	if out, err := ns.Output("sysctl", "-qw", "net.netfilter.nf_conntrack_tcp_timeout_time_wait=120"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	nstest.Connect(t, ns, addr, 50) // these have time left when deleted
	if out, err := ns.Output("conntrack", "-D", "-p", "tcp"); err != nil {
		t.Fatalf("conntrack -D: %v: %s", err, out)
	}
	time.Sleep(3 * eventsBatch)
	e := ev.Read()
	var ended, evicted uint64 // a close can race into another TCP class (a reset): every class is counted
	for cl := range model.NumClasses {
		ended, evicted = ended+e.Ended[cl], evicted+e.Evicted[cl]
	}
	if ended < 100 || evicted != 0 {
		t.Errorf("50 entries ran out and 50 were deleted: %d ended, %d evicted (want 100, 0); by class %v", ended, evicted, e.Ended)
	}
}
