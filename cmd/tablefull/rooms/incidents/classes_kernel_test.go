package incidents

import (
	"math"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

func within10(got, want float64) bool { return math.Abs(got-want) <= 0.1*want+0.5 }

// checkClass: the class first, its rate within 10 % of the kernel's, the
// ceiling from its hold.
func checkClass(t *testing.T, f diagnose.Frame, per [model.NumClasses]float64, want model.Class, kernel float64, hold uint64) {
	t.Helper()
	top, ok := f.Fill.Top()
	if !ok || top.Class != want {
		t.Errorf("first class %+v, want %v (all %+v)", top, want, f.Fill.Classes)
	}
	if !within10(per[want], kernel) {
		t.Errorf("%v at %.1f new/s, the kernel made %.1f/s", want, per[want], kernel)
	}
	if top.Hold != hold {
		t.Errorf("%v held %d s, the namespace's timeout is %d s", want, top.Hold, hold)
	}
	c := f.Sample.Conntrack
	if ceiling, why := diagnose.CeilingOf(c, f.Fill); !want.Standing() && ceiling != arith.Ceiling(c.Max, hold) {
		t.Errorf("ceiling %v (%s), want %d ÷ %d s", ceiling, why, c.Max, hold)
	}
	t.Logf("%s: %.1f new/s (kernel %.1f), ceiling %s", want, per[want], kernel, func() string { _, why := diagnose.CeilingOf(c, f.Fill); return why }())
}

// nearCap waits for the agent to count events: the table past half its
// cap.
func nearCap(f diagnose.Frame) bool {
	return f.Rates.Entries.Basis == model.BasisEvents && f.Fill.Known()
}

// TestClassTCPChurn: a connection per request through a TIME_WAIT hold
// (the write-up's shape) reads tcp-closed at the kernel's rate, loopback
// counted once.
func TestClassTCPChurn(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 8192, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 8192)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait", 5)
	clitest.Churn(t, ns, "127.0.0.1:18091", netns.Load{Workers: 4, Rate: 1000, DialTimeout: time.Second})
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	feed.Until(t, 20*time.Second, nearCap)
	f, per, k := feed.AgainstKernel(t, ns, 4*time.Second)
	checkClass(t, f, per, model.ClassTCPDone, k["tcp"], 5)
	// Over the same window: one entry a connection, as many as the active
	// opens (each has a passive one too).
	if got := per[model.ClassTCPDone]; !within10(got, feed.Active) || got > 0.75*(feed.Active+feed.Passive) {
		t.Errorf("%.0f new/s against %.0f active and %.0f passive opens/s: a loopback connection is one entry, not two", got, feed.Active, feed.Passive)
	}
}

// TestClassTCPReset: connections their client aborts with a reset end
// in CLOSE, which the kernel holds for its own timeout (10 s by default),
// not TIME_WAIT's: tcp-reset at the kernel's rate, its ceiling from that
// hold, and as many entries standing as the rate × 10 s says.
func TestClassTCPReset(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 4096, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 4096)
	ns := clitest.LabNS(t)
	clitest.Churn(t, ns, "127.0.0.1:18095", netns.Load{Workers: 4, Rate: 300, DialTimeout: time.Second, Reset: true})
	heldInState(t, ns, model.ClassTCPReset, "CLOSE", 10, 25*time.Second)
}

// TestClassTCPHalfOpen: handshakes whose final ACK never reaches
// conntrack stand in SYN_RECV for that state's own hold, not an open
// connection's: tcp-half-open at the kernel's rate, its ceiling from
// nf_conntrack_tcp_timeout_syn_recv, and the entries in SYN_RECV as rate
// × that hold. Read as tcp-open (as it was), the class stands, has no
// ceiling, and this fails.
func TestClassTCPHalfOpen(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 2048, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 2048)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, knob.SynRecv, 8)
	clitest.SetNS(t, ns, "net.ipv4.tcp_synack_retries", 0) // no retransmitted SYN-ACK renews an entry's hold
	dropHandshakeAcks(t, ns, 18097)
	// 150 handshakes a second, each closed once the client has its
	// SYN-ACK: 1,200 entries held 8 s
	handshakes(t, ns, "127.0.0.1:18097", 150)
	heldInState(t, ns, model.ClassTCPHalfOpen, "SYN_RECV", 8, 30*time.Second)
}

// TestClassTCPLastAck: closes whose last ACK never reaches conntrack
// (the server's, dropped before conntrack sees it) stand in LAST_ACK for
// that state's own hold, not TIME_WAIT's: tcp-last-ack at the kernel's
// rate, its ceiling from nf_conntrack_tcp_timeout_last_ack, and the
// entries in LAST_ACK as rate × that hold. Read as tcp-closed (as it was),
// they are held 120 s each and this fails.
func TestClassTCPLastAck(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 4096, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 4096)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, knob.LastAck, 8)
	clitest.SetNS(t, ns, "net.ipv4.tcp_orphan_retries", 1) // a closed client retries its FIN once: no FIN renews the entry for long
	if err := ns.Nft(`table inet tftlastack {
	chain out {
		type filter hook output priority -300; policy accept;
		tcp sport 18098 tcp flags == ack drop
	}
}
`); err != nil {
		t.Fatal(err)
	}
	clitest.Churn(t, ns, "127.0.0.1:18098", netns.Load{Workers: 4, Rate: 300, DialTimeout: time.Second})
	heldInState(t, ns, model.ClassTCPLastAck, "LAST_ACK", 8, 30*time.Second)
}

// heldInState checks a class whose entries ns's load leaves in one TCP
// state: once the agent counts its ended entries (within), over one hold
// against conntrack(8)'s NEW events, the class comes first at the
// kernel's rate with its ceiling from hold, and the entries conntrack(8)
// lists in state are the kernel's rate into the state × hold. The window
// is the hold itself: what stands at its end is what came into the state
// in it, whatever the load's pace did before.
//
// Into the state, not new: a client port reused while its entry waits in
// the state re-enters the state without a new entry (no NEW event; the
// kernel takes the SYN over the old entry), and how often a port is
// reused depends on the load's pace. The class counts new entries, so its
// rate is at most the rate into the state.
func heldInState(t *testing.T, ns *netns.NS, cl model.Class, state string, hold uint64, within time.Duration) {
	t.Helper()
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	feed.Until(t, within, func(f diagnose.Frame) bool {
		return nearCap(f) && f.Sample.Entries.Ended[cl] > 0
	})
	span := time.Duration(hold) * time.Second
	into := clitest.CountEvents(ns, span, "UPDATE", "-e", "UPDATE", "-p", "tcp", "--state", state)
	f, per, k := feed.AgainstKernel(t, ns, span)
	checkClass(t, f, per, cl, k["tcp"], hold)
	out, err := ns.Output("conntrack", "-L", "-p", "tcp", "--state", state)
	if err != nil {
		t.Fatal(err)
	}
	left := secondsLeft(t, out, state)
	if len(left) > int(hold)+1 {
		t.Errorf("an entry in %s has %d s left; the hold is %d s", state, len(left)-1, hold)
	}
	// The timeouts count down evenly: each whole second left holds the
	// entries that came into the state in one second. The top second is
	// left out: a retransmitted FIN or SYN-ACK renews an entry's hold
	// there, as the kernel renews it on every packet.
	var sum float64
	for _, n := range left[:min(len(left), int(hold)-1)] {
		sum += float64(n)
	}
	rate := into.Rate(t)["tcp"]
	if got := sum / float64(hold-1); math.Abs(got-rate) > 0.2*rate {
		t.Errorf("%.0f entries a second of hold in %s (%v by seconds left); the kernel moved %.1f/s into it", got, state, left, rate)
	}
	if per[cl] > 1.1*rate+0.5 {
		t.Errorf("%v at %.1f new/s, more than the %.1f/s the kernel moved into %s", cl, per[cl], rate, state)
	}
	t.Logf("%s: %.1f/s into %s (%.1f new/s), %v by seconds left", cl, rate, state, per[cl], left)
}

// secondsLeft counts the entries conntrack(8) listed in state by the
// whole seconds their timeout has left.
func secondsLeft(t *testing.T, listing, state string) []int {
	t.Helper()
	var left []int
	for _, l := range strings.Split(listing, "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != state {
			continue
		}
		s, err := strconv.Atoi(f[2])
		if err != nil || s < 0 {
			t.Fatalf("no timeout in %q", l)
		}
		for len(left) <= s {
			left = append(left, 0)
		}
		left[s]++
	}
	return left
}

// handshakes opens perSec connections a second to addr in ns, evenly
// spaced, and closes each as soon as it is made, until the test ends.
func handshakes(t *testing.T, ns *netns.NS, addr string, perSec int) {
	t.Helper()
	srv := &netns.Server{Body: []byte("x\n")}
	if err := ns.Serve(addr, srv); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done; srv.Close() })
	go func() {
		defer close(done)
		ns.Do(func() error {
			tick := time.NewTicker(time.Second / time.Duration(perSec))
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return nil
				case <-tick.C:
				}
				if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
					c.Close()
				}
			}
		})
	}()
}

// TestClassUDPResolver: glibc's resolver against dnsmasq, a fresh socket
// a lookup, reads udp at the kernel's rate and its ceiling from the UDP
// timeout.
func TestClassUDPResolver(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 4096, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack", "dnsmasq", "python3", "unshare")
	clitest.LowerMax(t, 4096)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_udp_timeout", 10)
	clitest.ResolveAt(t, ns, t.TempDir(), 300, 40*time.Second)
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	feed.Until(t, 25*time.Second, nearCap)
	f, per, k := feed.AgainstKernel(t, ns, 4*time.Second)
	checkClass(t, f, per, model.ClassUDPSingle, k["udp"], 10)
	if !strings.Contains(f.Fill.DescribeText(f.Rates.Entries.TopDests, f.Sample.Conntrack), "udp/53") {
		t.Errorf("what fills it does not name udp/53: %s", f.Fill.DescribeText(f.Rates.Entries.TopDests, f.Sample.Conntrack))
	}
}

// TestClassUnansweredSYN: SYNs to a port whose answers are dropped before
// conntrack sees them stand in SYN_SENT for its hold.
func TestClassUnansweredSYN(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 2048, Quiet: true}) // its churn must stand over half the cap at its pace
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 2048)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_syn_sent", 8)
	dropSynAcks(t, ns, 18093)
	clitest.Churn(t, ns, "127.0.0.1:18093", netns.Load{Workers: 40, DialTimeout: 250 * time.Millisecond})
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	// Past the hold, the first entries have ended and say how.
	feed.Until(t, 30*time.Second, func(f diagnose.Frame) bool {
		return nearCap(f) && f.Sample.Entries.Ended[model.ClassTCPUnanswered] > 0
	})
	// a longer window than the others': 40 dials that time out together
	// make bursts the windows' edges can split unevenly
	f, per, k := feed.AgainstKernel(t, ns, 6*time.Second)
	checkClass(t, f, per, model.ClassTCPUnanswered, k["tcp"], 8)
}

// TestClassesUnprivileged: an agent without CAP_NET_ADMIN near the cap
// says the classes need it and counts TCP opens, a loopback connection
// once.
func TestClassesUnprivileged(t *testing.T) {
	// Quiet not for a pace of its own (its entries are held open) but to
	// take the cap's turn with the classes of it, which wait for the heavy
	// tests: one turn of the cap, not two
	nstest.Parallel(t, nstest.Claim{Max: 2048, Quiet: true})
	clitest.NeedKernel(t, "setpriv")
	clitest.LowerMax(t, 2048)
	ns := clitest.LabNS(t)
	// The table stands over half the cap (where the agent counts new
	// entries, and here says it cannot) and under it (no drop: each open
	// is one entry) whatever pace a loaded machine lets the churn keep:
	// most of it is connections held open; the churn, held 12 s, adds up
	// to ~600 at its full pace (its closing ones count too) and a third
	// of that at a third. A churn alone at 150/s stood at 750 on a loaded
	// CI run, under half the cap, and near the cap on an idle machine.
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait", 12)
	nstest.HoldOpen(t, ns, "127.0.0.1:18098", 800)
	clitest.Churn(t, ns, "127.0.0.1:18097", netns.Load{Workers: 2, Rate: 30, DialTimeout: time.Second})
	bin := clitest.NobodyBinary(t)
	p := &agent.Process{Argv: []string{"ip", "netns", "exec", ns.Name, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "agent"},
		Name: ns.Name, MinBackoff: time.Hour} // `BIN agent`: TestMain runs it as the command
	p.Start(500 * time.Millisecond)
	defer p.Stop()
	feed := &clitest.ClassFeed{P: p, An: diagnose.NewAnalyzer(100)}
	f := feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool { return f.Sample.Entries.Note == ctnetlink.NoteEventsNoCap })
	f = feed.Until(t, 5*time.Second, func(f diagnose.Frame) bool {
		return f.Rates.Entries.Basis == model.BasisTCPOpens && f.Rates.NewEntriesPS() > 0
	})
	if opens := f.Rates.ActiveOpensPS; !within10(f.Rates.NewEntriesPS(), opens) {
		t.Errorf("%.0f new/s without events against %.0f active (and as many passive) opens/s: a loopback connection is one entry", f.Rates.NewEntriesPS(), opens)
	}
	if !strings.Contains(f.Rates.Entries.RateText(), "TCP only") {
		t.Errorf("the rate %q does not say it is TCP only", f.Rates.Entries.RateText())
	}
}
