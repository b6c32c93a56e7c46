package incidents

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
)

// onLoopback adds addrs (each a /32) to ns's loopback: the addresses a
// lab's NAT pool, clients and servers take.
func onLoopback(t *testing.T, ns *netns.NS, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		if out, err := ns.Output("ip", "addr", "add", a+"/32", "dev", "lo"); err != nil {
			t.Fatalf("ip addr add %s in %s: %v %s", a, ns.Name, err, out)
		}
	}
}

// dropSynAcks drops, before conntrack sees them, the SYN-ACKs a server
// on port in ns answers with: its clients' SYNs go unanswered, held in
// SYN_SENT and retransmitted.
func dropSynAcks(t *testing.T, ns *netns.NS, port int) {
	t.Helper()
	if err := ns.Nft(fmt.Sprintf(`table inet tftsyn%[1]d {
	chain out {
		type filter hook output priority -300; policy accept;
		tcp sport %[1]d tcp flags & (syn | ack) == syn | ack drop
	}
}
`, port)); err != nil {
		t.Fatal(err)
	}
}

// dropHandshakeAcks drops, before conntrack sees them, the client's
// packets to port in ns after its SYN (the ACK that completes the
// handshake and all that follows): the server's SYN-ACK leaves each entry
// in SYN_RECV.
func dropHandshakeAcks(t *testing.T, ns *netns.NS, port int) {
	t.Helper()
	if err := ns.Nft(fmt.Sprintf(`table inet tftack%[1]d {
	chain out {
		type filter hook output priority -300; policy accept;
		tcp dport %[1]d tcp flags & syn == 0 drop
	}
}
`, port)); err != nil {
		t.Fatal(err)
	}
}

// TestTableFullInNamespace reproduces the write-up's incident for real: a
// tracked namespace, a lowered global max, one new connection per request.
func TestTableFullInNamespace(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	ns := clitest.LabNS(t)
	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	an := diagnose.NewAnalyzer(100)
	an.Add(clitest.SnapshotIn(t, ns).Sample)
	done := make(chan netns.LoadResult, 1)
	go func() {
		res, err := ns.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 400,
			DialTimeout: 300 * time.Millisecond, Deadline: 4 * time.Second})
		if err != nil {
			t.Errorf("load: %v", err)
		}
		done <- res
	}()
	var frames []diagnose.Frame
	for range 6 {
		time.Sleep(500 * time.Millisecond)
		frames = append(frames, an.Add(clitest.SnapshotIn(t, ns).Sample))
	}
	res := <-done
	t.Logf("load: %d ok, %d failed", res.OK, res.Failed)

	last := frames[len(frames)-1]
	if c := last.Sample.Conntrack; c.Count != capMax || c.Max != capMax {
		t.Errorf("count %d max %d, want both %d", c.Count, c.Max, capMax)
	}
	sawFull, sawDrops := false, false
	for _, f := range frames {
		sawFull = sawFull || f.Verdict().Kind == verdict.TableFull
		for _, row := range f.Rates.CT {
			sawDrops = sawDrops || row.Values.Get(model.Drop) > 0
		}
	}
	if !sawFull {
		t.Errorf("no TABLE FULL verdict in %d frames; last: %v", len(frames), last.Verdicts)
	}
	if !sawDrops {
		t.Errorf("no per-CPU drop delta in any frame")
	}
	if eps := an.Episodes(); len(eps) == 0 || eps[0].Drops == 0 {
		t.Errorf("episodes %+v, want a pinned one with drops", eps)
	}
	nsLink, err := ns.Output("readlink", "/proc/self/ns/net") // net:[4026532177]
	if err != nil {
		t.Fatal(err)
	}
	witnessed := false
	for _, f := range frames {
		for _, l := range f.Sample.Kernel.Lines {
			witnessed = witnessed || (fmt.Sprintf("net:[%d]", l.NetNS) == strings.TrimSpace(nsLink) && l.NetNSName == ns.Name)
		}
	}
	if !witnessed {
		t.Errorf("no kernel \"table full\" line naming %s (%s)", ns.Name, strings.TrimSpace(nsLink))
	}
	if res.Failed == 0 {
		t.Errorf("no client request failed: the table did not refuse connections")
	}

	// The load is over and the counters are still: the snapshot must agree
	// with conntrack -S and /proc/sys read in the namespace.
	cs, err := ns.Output("conntrack", "-S")
	if err != nil {
		t.Fatal(err)
	}
	count, err := ns.Output("cat", "/proc/sys/net/netfilter/nf_conntrack_count")
	if err != nil {
		t.Fatal(err)
	}
	doc := clitest.SnapshotIn(t, ns)
	if got, want := doc.Sample.Conntrack.Count, clitest.MustUint(t, count); got != want {
		t.Errorf("snapshot count %d, /proc/sys in the namespace says %d", got, want)
	}
	want := clitest.ParseConntrackS(t, cs)
	if len(want) != len(doc.Sample.CTStats.PerCPU) {
		t.Fatalf("conntrack -S has %d CPUs, snapshot %d", len(want), len(doc.Sample.CTStats.PerCPU))
	}
	for i, row := range doc.Sample.CTStats.PerCPU {
		for _, c := range doc.Sample.CTStats.Reported {
			if row.Values.Get(c) != want[i][string(c)] {
				t.Errorf("cpu%d %s: snapshot %d, conntrack -S %d", row.CPU, c, row.Values.Get(c), want[i][string(c)])
			}
		}
	}
}
