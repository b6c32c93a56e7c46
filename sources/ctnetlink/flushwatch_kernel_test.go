package ctnetlink

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// sendUDP makes n UDP entries in ns, one a socket, to 127.0.0.1:port.
func sendUDP(t *testing.T, ns *netns.NS, port, n int) {
	t.Helper()
	if err := ns.Do(func() error {
		for range n {
			c, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				return err
			}
			c.Write([]byte{1})
			c.Close()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestFlushWatchSeesUserDeletionsOnly: on the real kernel, about 1,000
// UDP entries (sockets that reuse a port share one) deleted by
// conntrack -D are one burst toward their
// destination; 200 entries the kernel times out after it reach the
// watch not at all (its socket filter drops them).
func TestFlushWatchSeesUserDeletionsOnly(t *testing.T) {
	if _, err := exec.LookPath("conntrack"); err != nil {
		t.Skip("needs conntrack")
	}
	ns, _ := nstest.Tracked(t)
	var w *FlushWatch
	if err := ns.Do(func() (err error) { w, err = WatchFlushes(); return err }); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sendUDP(t, ns, 5353, 1000)
	out, err := ns.Output("conntrack", "-D", "-p", "udp", "--dport", "5353")
	if err != nil {
		t.Fatalf("conntrack -D: %v: %s", err, out)
	}
	deleted := uint64(strings.Count(out, "dport=5353 ")) // a line per entry it deleted
	if deleted < 900 {
		t.Fatalf("conntrack -D deleted only %d of 1,000", deleted)
	}
	if out, err := ns.Output("sysctl", "-w", "net.netfilter.nf_conntrack_udp_timeout=1"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sendUDP(t, ns, 5454, 200)
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, _ := ns.Output("conntrack", "-L", "-p", "udp", "--dport", "5454")
		if len(out) == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the kernel did not time out the entries: %s", out)
		}
	}
	time.Sleep(3 * eventsBatch)
	got := w.Read(time.Now().Add(2 * time.Second))
	if !got.Watching || got.Deleted != deleted || len(got.Recent) != 1 {
		t.Fatalf("%d deleted by user space, 200 timed out: watched %v, %d deleted, bursts %+v (%s)", deleted, got.Watching, got.Deleted, got.Recent, got.Note)
	}
	w.mu.Lock()
	received := w.received
	w.mu.Unlock()
	if received != deleted {
		t.Errorf("%d messages reached the watch for %d deletions: the filter passed the kernel's own ends", received, deleted)
	}
	// The burst is the seconds of FlushMin deletions or more: a tail of
	// fewer in the next second, where conntrack -D crossed one, is not.
	b := got.Recent[0]
	inBurst := func(n uint64) bool { return n <= deleted && n+model.FlushMin > deleted }
	if !inBurst(b.Entries) || b.UDP != b.Entries || len(b.Dests) != 1 || b.Dests[0].Dest != "udp 127.0.0.1:5353" || b.Dests[0].Entries != b.Entries {
		t.Errorf("%d deleted; burst %+v", deleted, b)
	}
}
