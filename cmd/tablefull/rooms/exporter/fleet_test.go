package exporter

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestFleetInTmux: the console over a real Prometheus scraping two
// exporters, one of a namespace whose table is pinned and one of a quiet
// namespace: the pinned one is listed first as TABLE FULL and the quiet one
// after it (OK on a quiet machine), enter shows the pinned one's history at its cap, esc comes back.
func TestFleetInTmux(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 64, Servers: true})
	clitest.NeedKernel(t, "prometheus", "tmux")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	full, quiet := clitest.LabNS(t), clitest.LabNS(t)
	fullAddr, _ := clitest.StartExporter(t, full.Name, "1s")
	quietAddr, _ := clitest.StartExporter(t, quiet.Name, "1s")
	prom, url := clitest.StartPrometheus(t, fullAddr, quietAddr)

	srv := &netns.Server{Body: []byte("object\n")}
	if err := full.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if res, err := full.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 300, DialTimeout: 300 * time.Millisecond, Deadline: 4 * time.Second}); err != nil || res.Failed == 0 {
		t.Fatalf("load: %+v %v", res, err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		// TABLE FULL in the exporter's verdict, and enough scrapes since
		// for a history in which it is pinned more than one interval.
		if clitest.Vector(t, prom, `sum_over_time(tablefull_verdict{kind="table_full"}[1m])`, "instance")[fullAddr] >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Prometheus never saw the table full")
		}
	}

	for _, size := range [][2]int{{200, 50}, {80, 24}} {
		s := clitest.StartTmux(t, size[0], size[1], "", "--prometheus", url, "--selector", `'job="tablefull"'`)
		screen := s.WaitFor("TABLE FULL", fullAddr, quietAddr)
		t.Logf("%dx%d fleet:\n%s", size[0], size[1], screen)
		lines := strings.Split(screen, "\n")
		fullRow, quietRow := -1, -1
		for i, l := range lines {
			if strings.Contains(l, fullAddr) && strings.Contains(l, "TABLE FULL") {
				fullRow = i
			}
			// The quiet table is not full; its verdict may still be about
			// the host (CPU-BOUND when the machine is busy with other tests).
			if strings.Contains(l, quietAddr) && !strings.Contains(l, "TABLE FULL") {
				quietRow = i
			}
		}
		if fullRow < 0 || quietRow < 0 || fullRow > quietRow {
			t.Fatalf("%dx%d: want the pinned instance first as TABLE FULL, the quiet one after it and not full:\n%s", size[0], size[1], screen)
		}
		s.Keys("Enter")
		s.WaitFor("history from Prometheus", "64 / 64", "TABLE FULL")
		s.Keys("Escape")
		s.WaitFor("tablefull fleet", quietAddr)
		s.Keys("q")
		s.WaitFor("EXIT=0")
	}
}

// TestFleetIntervalBound: an --interval under the fleet's refresh floor
// is refused with an error that says the floor, not raised in silence; the
// default interval is not the user's and is raised.
func TestFleetIntervalBound(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Run([]string{"--prometheus", "http://127.0.0.1:1", "--interval", "2s"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "at least every 5s") {
		t.Errorf("--interval 2s over Prometheus: exit %d, %q", code, errb.String())
	}
}

// TestFleetNamesFullNamespace: a real Prometheus scraping the host's
// exporter while a namespace of the host is full and dropping (the
// host's own table nearly empty): the row says TABLE FULL and why in
// words (the namespace, full, its drops a second), at 80 and 200
// columns; enter shows HISTORY, with the namespace's drops.
func TestFleetNamesFullNamespace(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 64, Servers: true})
	clitest.NeedKernel(t, "prometheus", "tmux")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	ns := clitest.LabNS(t)
	addr, _ := clitest.StartExporter(t, "", "1s")
	prom, url := clitest.StartPrometheus(t, addr)
	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	done, stop := make(chan struct{}), make(chan struct{})
	go func() { // keep it full and dropping while the fleet is looked at, until the test ends
		defer close(done)
		// the deadline outlasts the wait for Prometheus (75 s) and both
		// screens, so the namespace is full for as long as it is looked at
		ns.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 1 << 30, DialTimeout: 300 * time.Millisecond, Deadline: 5 * time.Minute, Stop: stop})
	}()
	defer func() { close(stop); <-done; srv.Close() }()
	// The host's own table is far from its cap: the exporter reads whole
	// samples (the namespaces among them) every 10 s, so the drops need a
	// few of those before a rate shows. The exporter reads every namespace
	// of the host, other tests' full ones too: only this test's own
	// namespace, full and dropping, is what the screens are about (CI saw
	// another's drops pass the wait, and the row name this one still empty).
	own := `{netns="` + ns.Name + `"}`
	for deadline := time.Now().Add(75 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if clitest.Vector(t, prom, `tablefull_netns_conntrack_entries`+own, "instance")[addr] >= capMax &&
			clitest.Vector(t, prom, `sum by (instance) (rate(tablefull_netns_conntrack_drops_total`+own+`[2m]))`, "instance")[addr] > 0 &&
			clitest.Vector(t, prom, `tablefull_verdict{kind="table_full"}`, "instance")[addr] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Prometheus never saw the namespace full and dropping")
		}
	}
	for _, size := range [][2]int{{200, 50}, {80, 24}} {
		s := clitest.StartTmux(t, size[0], size[1], "", "--prometheus", url, "--selector", `'job="tablefull"'`)
		screen := s.WaitFor("TABLE FULL", addr, " full 64 / 64", "drops/s")
		t.Logf("%dx%d fleet:\n%s", size[0], size[1], screen)
		s.Keys("Enter")
		screen = s.WaitFor("HISTORY", "history from Prometheus", "TABLE FULL")
		if strings.Contains(screen, "REPLAY") || !namespaceDropsInHistory(s) {
			t.Errorf("%dx%d: the drill-down has no frame of the namespace's drops:\n%s", size[0], size[1], s.Capture(false))
		}
		s.Keys("Escape")
		s.WaitFor("tablefull fleet")
		s.Keys("q")
		s.WaitFor("EXIT=0")
	}
}

// namespaceDropsInHistory steps back through the drill-down's frames
// (←) until one says the full namespace dropped: at a drop or so a
// second, a frame of one second may hold none, so the newest frame
// alone cannot tell.
func namespaceDropsInHistory(s *clitest.Tmux) bool {
	dropped := regexp.MustCompile(`64 / 64\s+entries,\s+[1-9][0-9,]*\s+drops`) // wrapped at 80 columns
	for range 30 {
		if dropped.MatchString(s.Capture(false)) {
			return true
		}
		s.Keys("Left")
		time.Sleep(100 * time.Millisecond)
	}
	return dropped.MatchString(s.Capture(false))
}
