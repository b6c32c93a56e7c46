package incidents

import (
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestNATReclaimsTimeWaitAsTheModelSays: a source NAT of 4 ports to one
// destination, its 4 tuples held by established flows (a fifth is
// refused, on every kernel), then by the same flows closed, in
// TIME_WAIT; then new flows. A kernel from 6.5 lets a new flow's last tries take a
// TIME_WAIT tuple back (nf_nat_used_tuple_harder, when the new SYN's
// sequence is past the old one's: one of 4 tuples is, most times); an
// older one drops its SYNs. The model's rule for the running release
// (which NAT PORTS' remedies follow) says what this kernel did. The boot
// test runs it on Debian 12's 6.1 too.
func TestNATReclaimsTimeWaitAsTheModelSays(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	onLoopback(t, ns, "10.0.0.1", "10.0.0.5")
	if err := ns.Nft(`table ip tft-reclaim {
	chain post { type nat hook postrouting priority srcnat; oif "lo" tcp dport 80 snat to 10.0.0.1:20000-20003; }
}`); err != nil {
		t.Fatal(err)
	}
	// the server closes after the client: the client's close comes first,
	// so no server socket sits in TIME_WAIT on a tuple a new flow takes
	nstest.Serve(t, ns, "10.0.0.5:80", func(c net.Conn) { io.Copy(io.Discard, c); c.Close() })
	open := func() net.Conn {
		var c net.Conn
		ns.Do(func() error { c, _ = net.DialTimeout("tcp", "10.0.0.5:80", time.Second); return nil })
		return c
	}
	// closeFirst closes c before the server does and waits for the
	// server's close: both sides' FINs, the entry in TIME_WAIT
	closeFirst := func(c net.Conn) bool {
		defer c.Close()
		c.(*net.TCPConn).CloseWrite()
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err := io.Copy(io.Discard, c)
		return err == nil
	}
	var held []net.Conn
	for i := range 4 {
		c := open()
		if c == nil {
			t.Fatalf("flow %d of the pool's 4 ports was refused", i+1)
		}
		held = append(held, c)
	}
	// control: 4 established flows hold every tuple, and no kernel takes
	// an established one back
	if c := open(); c != nil {
		c.Close()
		t.Fatal("a fifth flow found a tuple while 4 established flows held the pool's 4 ports: the pool is not exhausted")
	}
	for _, c := range held {
		if !closeFirst(c) {
			t.Fatal("a held flow did not close both ways")
		}
	}
	time.Sleep(300 * time.Millisecond)
	reclaimed := false
	for i := 0; i < 4 && !reclaimed; i++ {
		if c := open(); c != nil {
			reclaimed = true
			closeFirst(c)
		}
	}
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	release := strings.TrimSpace(string(b))
	says, known := model.NATReclaimsTimeWait(release)
	t.Logf("kernel %s: a new flow took a TIME_WAIT tuple back: %v; tablefull says %v", release, reclaimed, says)
	if !known || reclaimed != says {
		t.Errorf("on %s the kernel reclaimed: %v; tablefull's rule for it says %v (known %v)", release, reclaimed, says, known)
	}
}
