package ctnetlink

import (
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestFollowSeesWhatItsFilterMatches: on the real kernel, a follow of
// "-p tcp --dport PORT" counts every connection to it made and ended,
// keeps them newest last, and passes over the UDP datagrams beside them.
func TestFollowSeesWhatItsFilterMatches(t *testing.T) {
	if _, err := exec.LookPath("conntrack"); err != nil {
		t.Skip("needs conntrack")
	}
	ns, addr := nstest.Tracked(t)
	_, port, _ := net.SplitHostPort(addr)
	filter, err := entry.ParseFilter(entry.FilterArgs{"proto": "tcp", "dport": port})
	if err != nil {
		t.Fatal(err)
	}
	var f *Follower
	if err := ns.Do(func() (err error) { f, err = Follow("/proc", filter); return err }); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nstest.Connect(t, ns, addr, 200)
	if err := ns.Do(func() error {
		for i := range 30 {
			c, err := net.Dial("udp", net.JoinHostPort("127.0.0.1", "9"))
			if err != nil {
				return err
			}
			c.Write([]byte{byte(i)})
			c.Close()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if out, err := ns.Output("conntrack", "-D", "-p", "tcp"); err != nil {
		t.Fatalf("conntrack -D: %v: %s", err, out)
	}
	time.Sleep(3 * eventsBatch)
	got, failed := f.Read()
	if got.New != 200 || got.Gone != 200 || got.Lost != 0 || failed {
		t.Errorf("200 connections made and deleted: followed %d new, %d ended, %d lost, failed %v", got.New, got.Gone, got.Lost, failed)
	}
	if n := len(got.Recent); n != 400 || got.Recent[0].Gone || !got.Recent[n-1].Gone {
		t.Fatalf("kept %d events, the first ended %v", n, n > 0 && got.Recent[0].Gone)
	}
	for _, e := range got.Recent {
		if e.Flow.Proto != 6 || e.Flow.DstPort != got.Recent[0].Flow.DstPort {
			t.Fatalf("an event the filter does not match: %+v", e.Flow)
		}
	}
	f.Close()
	f.Close() // twice is harmless: the console closes on esc and on f
}

// TestFollowSaysWhatItLost: a follow that falls behind a small socket
// buffer says it lost events, and counts none it did not see.
func TestFollowSaysWhatItLost(t *testing.T) {
	ns, addr := nstest.Tracked(t)
	var f *Follower
	if err := ns.Do(func() (err error) { f, err = follow("/proc", entry.Filter{}, 4096); return err }); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	func() {
		f.mu.Lock() // the reader stalls at its next datagram
		defer f.mu.Unlock()
		nstest.Connect(t, ns, addr, 500)
	}()
	time.Sleep(3 * eventsBatch)
	got, _ := f.Read()
	if got.Lost == 0 || got.New >= 500 {
		t.Errorf("500 connections behind a 4 KiB buffer: %d followed, %d lost", got.New, got.Lost)
	}
}
