package incidents

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/probes"
)

// holdingListener accepts connections in ns and keeps them open until
// the test ends.
func holdingListener(t *testing.T, ns *netns.NS) string {
	t.Helper()
	h, err := ns.Hold("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h.Addr()
}

// whoWindow sums what the probes counted over frames.
type whoWindow struct {
	secs            float64
	opened, others  float64
	drops, theirs   uint64
	firewall        uint64
	first           map[string]int // who was named first, by frames
	full            diagnose.Frame
	ctDrops, frames uint64
}

func (w *whoWindow) add(f diagnose.Frame, churner, churnUnit string) {
	who := f.Sample.Who
	if !who.On() {
		return
	}
	w.frames++
	w.secs += f.Rates.Elapsed.Seconds()
	w.ctDrops += f.Rates.CTTotal.Get(model.Drop)
	for i, c := range who.Conns {
		if i == 0 {
			w.first[c.Owner.String()]++
		}
		if c.Owner.String() == churner {
			w.opened += float64(c.Opened)
		} else {
			w.others += float64(c.Opened)
		}
	}
	for _, d := range who.Drops {
		w.drops += d.N
		if d.Group == churnUnit {
			w.theirs += d.N
		}
		if strings.HasSuffix(d.Dest, ":9") {
			w.firewall += d.N
		}
	}
	if hasVerdict(f, verdict.TableFull) {
		w.full = f
	}
}

// TestWhoNamesTheChurner: a namespace capped at 300 entries. A client in
// a pod's cgroup holds 170 connections (the table is near its cap: the
// agent loads the probes); a client in a unit knocks twice a second on a
// port a firewall rule drops; then a client in a unit of its own opens
// 100 connections a second, one per request, and pins the table. The
// firewall's drops are not the table's; the churner is named first, with
// a rate within 10 % of what it began; the table's drops during the pin
// are its packets; TABLE FULL says so.
func TestWhoNamesTheChurner(t *testing.T) {
	clitest.NeedKernel(t, "python3")
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		t.Skip("needs the kernel's BTF")
	}
	ns, err := netns.Create(fmt.Sprintf("tft-who-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Delete() })
	if err := ns.Nft(strings.Replace(netns.TrackRuleset, "ct state established,related accept",
		"ct state established,related accept\n\t\ttcp dport 9 drop", 1)); err != nil {
		t.Fatal(err)
	}
	srv := &netns.Server{Body: []byte("ok\n")}
	if err := ns.Serve("127.0.0.1:0", srv); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	hold := holdingListener(t, ns)
	clitest.LowerMax(t, 300)
	tag := strconv.Itoa(os.Getpid())
	churnUnit := "tablefull-test-churn-" + tag + ".service"
	churnCg := clitest.UnitCgroup(t, churnUnit)
	blockedCg := clitest.UnitCgroup(t, "tablefull-test-blocked-"+tag+".service")
	steadyCg := testPodCgroup(t, "kubepods-besteffort-pod1b2c3d4e_"+tag+".slice")

	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	clitest.PythonIn(t, ns, steadyCg, netns.HoldScript, hold, "170")
	clitest.PythonIn(t, ns, blockedCg, clitest.ChurnScript, "127.0.0.1:9", "2", "60")
	quiet := &whoWindow{first: map[string]int{}}
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); {
		quiet.add(feed.An.Add(clitest.NextSample(t, feed.P)), "", churnUnit)
	}
	if quiet.frames == 0 {
		t.Fatal("the probes were not loaded with the table near its cap")
	}
	if quiet.firewall != 0 || quiet.drops != 0 || quiet.ctDrops != 0 {
		t.Errorf("before the pin: %d drops counted (%d to the firewalled port), the table's drop counter %d: the firewall's drops blamed on the table",
			quiet.drops, quiet.firewall, quiet.ctDrops)
	}

	churn, churnPID := clitest.PythonIn(t, ns, churnCg, clitest.ChurnScript, srv.Addr(), "100", "10")
	churner := fmt.Sprintf("python3 (pid %d, %s)", churnPID, churnUnit)
	began := time.Now()
	pin := &whoWindow{first: map[string]int{}}
	for time.Since(began) < 9*time.Second {
		f := feed.An.Add(clitest.NextSample(t, feed.P))
		if time.Since(began) > 2*time.Second { // the pace settles, the table fills
			pin.add(f, churner, churnUnit)
		}
	}
	line, _ := churn.ReadString('\n')
	var n int
	var took float64
	fmt.Sscan(line, &n, &took)
	want := float64(n) / took
	if pin.secs == 0 {
		t.Fatal("the probes stopped counting")
	}
	if got := pin.opened / pin.secs; got < want*0.9 || got > want*1.1 {
		t.Errorf("churner counted at %.1f new connections/s, it began %.1f/s (%d in %.1f s)", got, want, n, took)
	}
	if pin.first[churner]*10 < int(pin.frames)*9 {
		t.Errorf("named first %v in %d frames: want the churner", pin.first, pin.frames)
	}
	if pin.drops == 0 || pin.theirs*10 < pin.drops*9 || pin.ctDrops == 0 {
		t.Errorf("during the pin %d drops counted, %d of them the churner's (the table's drop counter: %d)", pin.drops, pin.theirs, pin.ctDrops)
	}
	if pin.full.Verdicts == nil {
		t.Fatal("no TABLE FULL while the churner pinned the table")
	}
	for _, v := range pin.full.Verdicts {
		t.Logf("%s — %s", v.Kind, v.Text())
		if v.Kind == verdict.TableFull && (!strings.Contains(v.Text(), "of new connections from "+churner) ||
			!strings.Contains(v.Text(), model.OnePerRequest) || !strings.Contains(v.Text(), "are its packets")) {
			t.Errorf("TABLE FULL does not name the churner and its drops: %s", v.Text())
		}
	}
}

// TestWhoRefusedFallsBackToSockets: an agent without CAP_BPF, CAP_PERFMON
// and CAP_SYS_ADMIN, its table near the cap: the probes are refused and
// its samples say so, and the census still names who holds the entries,
// from the namespace's sockets.
func TestWhoRefusedFallsBackToSockets(t *testing.T) {
	clitest.NeedKernel(t, "python3", "setpriv")
	ns, err := netns.Create(fmt.Sprintf("tft-wno-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Delete() })
	if err := ns.Nft(netns.TrackRuleset); err != nil {
		t.Fatal(err)
	}
	hold := holdingListener(t, ns)
	clitest.LowerMax(t, 300)
	tag := strconv.Itoa(os.Getpid())
	_, pid := clitest.PythonIn(t, ns, testPodCgroup(t, "kubepods-besteffort-pod5e6f7a8b_"+tag+".slice"), netns.HoldScript, hold, "200")

	t.Setenv("TABLEFULL_AS_MAIN", "1")
	argv, err := agent.NetnsArgv(ns.Name)
	if err != nil {
		t.Fatal(err)
	}
	drop := "-bpf,-perfmon,-sys_admin"
	var dropped []string // ip netns exec NAME setpriv … agent: entering takes CAP_SYS_ADMIN, the agent has none
	for i, a := range argv {
		dropped = append(dropped, a)
		if a == ns.Name && i > 0 && argv[i-1] == "exec" {
			dropped = append(dropped, "setpriv", "--bounding-set="+drop, "--inh-caps="+drop)
		}
	}
	p := &agent.Process{Argv: dropped, Name: ns.Name, MinBackoff: 100 * time.Millisecond}
	p.Start(500 * time.Millisecond)
	t.Cleanup(p.Stop)
	an := diagnose.NewAnalyzer(60)
	var refused bool
	var owners *model.Owners
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end) && (!refused || owners == nil); {
		f := an.Add(clitest.NextSample(t, p))
		if w := f.Sample.Who; w != nil && w.Note == probes.NoteNoCap {
			refused = true
		}
		if w := f.Sample.Who; w.On() {
			t.Fatalf("the probes loaded without CAP_BPF: %+v", w)
		}
		if c := f.Sample.Census; c != nil && c.Owners != nil {
			owners = c.Owners
		}
	}
	if !refused {
		t.Error("no sample said the probes were refused")
	}
	want := fmt.Sprintf("pod 5e6f7a8b-%s (python3, pid %d)", tag, pid)
	if owners == nil || len(owners.Top) == 0 || owners.Top[0].Owner.String() != want || owners.Top[0].N != 200 {
		t.Errorf("census owners %+v, want %s holding 200", owners, want)
	}
}
