package console

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestEveryNamespace: a dozen namespaces with tracked traffic, one pinned
// at the cap by a connection per request. The host's own collector — no
// --netns — names that namespace TABLE FULL within 2 intervals, the
// console shows it, and a namespace that goes away leaves no error.
func TestEveryNamespace(t *testing.T) {
	clitest.NeedKernel(t, "tmux", "prometheus")
	clitest.LowerMax(t, 300)
	var spaces []*netns.NS
	for range 12 {
		ns := clitest.LabNS(t)
		sleeper := ns.Command("sleep", "600") // a process inside: what the host reads it through
		clitest.StartUntilEnd(t, sleeper)
		spaces = append(spaces, ns)
	}
	full := spaces[3]
	// A namespace no process is in, as a router's: found by its bind
	// mount and read from inside it.
	router := clitest.LabNS(t)
	held := clitest.KnownMix()[:40]
	for i := range held {
		held[i].Timeout = 600
	}
	if err := router.Insert(held); err != nil {
		t.Fatal(err)
	}
	clitest.Churn(t, full, "127.0.0.1:18097", netns.Load{Workers: 4, Rate: 400, DialTimeout: 300 * time.Millisecond})
	for _, ns := range spaces[5:8] { // some tracked traffic elsewhere, far from the cap
		clitest.Churn(t, ns, "127.0.0.1:18098", netns.Load{Workers: 1, Rate: 2, DialTimeout: time.Second})
	}
	clitest.WaitPinned(t, full, 300, 15*time.Second)

	c, err := sources.NewCollector(kernelfs.DefaultRoots())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	an := diagnose.NewAnalyzer(10)
	var f diagnose.Frame
	named := false
	for i := 0; i < 3 && !named; i++ {
		f = an.Add(c.Sample(time.Now(), time.Second))
		named = f.Verdict().Kind == verdict.TableFull && strings.Contains(f.Verdict().Text(), "in netns "+full.Name)
		time.Sleep(time.Second)
	}
	if !named {
		t.Fatalf("no TABLE FULL naming netns %s within 2 intervals: %s (namespaces %+v)", full.Name, f.Verdict(), f.Sample.Namespaces)
	}
	if ns := f.Sample.Namespaces; ns == nil || len(ns.Rows)+ns.Others < 13 || ns.Rows[0].Name != full.Name {
		t.Errorf("namespaces %+v: want all 13, %s first", ns, full.Name)
	}
	if r := nsRow(f.Sample.Namespaces, router.Name); r == nil || r.Count != 40 || r.Kind != "netns" {
		t.Errorf("the namespace no process is in: %+v, want its 40 entries", r)
	}

	// The host's exporter names it in series of its own.
	addr, _ := clitest.StartHostExporter(t, "--interval", "500ms")
	want := `kind="netns",netns="` + full.Name + `"} 300`
	for end := time.Now().Add(5 * time.Second); !strings.Contains(clitest.MetricsText(t, addr), want); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the exporter has no %s", want)
		}
	}

	// A real Prometheus scraping it fires the namespace's alert for that
	// namespace alone.
	prom, _ := clitest.StartPrometheus(t, addr)
	query := `ALERTS{alertname="ConntrackNamespaceTableFull",alertstate="firing"}`
	var firing map[string]float64
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(time.Second) {
		if firing = clitest.Vector(t, prom, query, "netns"); len(firing) > 0 {
			break
		}
	}
	if len(firing) != 1 || firing[full.Name] != 1 {
		t.Errorf("firing for %v, want %s alone", firing, full.Name)
	}

	s := clitest.StartTmux(t, 200, 50, "", "--interval", "500ms")
	s.WaitFor("TABLE FULL", "in netns "+full.Name)
	// N lists it first; enter opens its own console, as --netns would:
	// the namespace's own table, pinned; esc comes back.
	s.Keys("N")
	s.WaitFor("namespaces: the host's others", "FULL,")
	s.Keys("Enter")
	s.WaitFor("netns "+full.Name+" ·", "300 / 300")
	s.Keys("Escape")
	s.WaitFor("in netns " + full.Name)
	// One namespace goes away mid-run: its process ends, its name goes.
	gone, err := netns.Create(fmt.Sprintf("tft-%d-gone", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gone.Delete() })
	sleeper := gone.Command("sleep", "600")
	clitest.StartUntilEnd(t, sleeper)
	time.Sleep(1500 * time.Millisecond)
	f = an.Add(c.Sample(time.Now(), time.Second))
	sleeper.Process.Kill()
	sleeper.Wait()
	if err := gone.Delete(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if screen := s.Capture(false); strings.Contains(screen, "no such file") || strings.Contains(screen, gone.Name) || !strings.Contains(screen, "TABLE FULL") {
		t.Errorf("after a namespace went away:\n%s", screen)
	}
	s.Keys("q")
	s.WaitFor("EXIT=0")
	f = an.Add(c.Sample(time.Now(), time.Second))
	if r := nsRow(f.Sample.Namespaces, gone.Name); r != nil {
		t.Errorf("a namespace gone is still read: %+v", r)
	}
}

// nsRow is the row of the namespace named name, or nil.
func nsRow(ns *model.Namespaces, name string) *model.NetNS {
	for i := range ns.Rows {
		if ns.Rows[i].Name == name {
			return &ns.Rows[i]
		}
	}
	return nil
}
