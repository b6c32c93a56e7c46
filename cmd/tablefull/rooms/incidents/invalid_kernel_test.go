package incidents

import (
	"net"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestInvalidReadsInvalid: established connections whose entries were
// flushed, with nf_conntrack_tcp_loose 0 (the tracker does not pick a
// flow up mid-stream) and a ruleset that drops ct state invalid, stall:
// every segment they send is invalid. That reads INVALID, never TABLE
// FULL, with the table far from its cap.
func TestInvalidReadsInvalid(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_loose", 0)
	if err := ns.Nft(`table inet tft-invalid {
	chain input { type filter hook input priority -10; policy accept; ct state invalid counter drop; }
}`); err != nil {
		t.Fatal(err)
	}
	nstest.Serve(t, ns, "127.0.0.1:18097", func(c net.Conn) { // read and discard until the client goes
		defer c.Close()
		buf := make([]byte, 64)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
	var conns []net.Conn
	if err := ns.Do(func() error {
		for range 20 {
			c, err := net.DialTimeout("tcp", "127.0.0.1:18097", time.Second)
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer func() {
		close(stop)
		for _, c := range conns {
			c.Close()
		}
	}()
	go func() { // a byte on every connection, ten times a second
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			for _, c := range conns {
				c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
				c.Write([]byte("x"))
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	if out, err := ns.Output("conntrack", "-F"); err != nil {
		t.Fatalf("conntrack -F: %v %s", err, out)
	}
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	f := feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool { return hasKind(f, verdict.InvalidPackets) })
	if hasKind(f, verdict.TableFull) {
		t.Errorf("invalid packets read TABLE FULL: %v", f.Verdicts)
	}
	t.Logf("%s", f.Verdict())
}

// hasKind reports whether one of f's verdicts is k.
func hasKind(f diagnose.Frame, k verdict.Kind) bool {
	for _, v := range f.Verdicts {
		if v.Kind == k {
			return true
		}
	}
	return false
}
