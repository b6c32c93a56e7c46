//go:build bench

package bench

import (
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ti-mo/conntrack"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/netns"
)

// podCap is the global nf_conntrack_max during the node bench: the
// pinned pod holds this many entries.
const podCap = 2048

// podNode builds a kubelet's default load: 110 pod namespaces, each with
// a tracking table, two processes and 30 entries. stop tears it down.
func podNode(t *testing.T) (spaces []*netns.NS, stop func()) {
	t.Helper()
	var cmds []*exec.Cmd
	for i := range 110 {
		ns, err := netns.Create(fmt.Sprintf("tfp-%d-%d", os.Getpid(), i))
		if err != nil {
			t.Fatal(err)
		}
		spaces = append(spaces, ns)
		ns.Nft(netns.TrackRuleset)
		for range 2 {
			c := ns.Command("sleep", "3600")
			c.Start()
			cmds = append(cmds, c)
		}
		if err := ns.Insert(podFlows(0, 30)); err != nil {
			t.Fatal(err)
		}
	}
	return spaces, func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		for _, ns := range spaces {
			ns.Delete()
		}
	}
}

// podFlows are n established TCP entries from a pod to services, the
// from'th on.
func podFlows(from, n int) []conntrack.Flow {
	flows := make([]conntrack.Flow, n)
	for j := range flows {
		i := from + j
		f := conntrack.NewFlow(6, conntrack.StatusConfirmed|conntrack.StatusAssured, netip.MustParseAddr("10.244.1.5"),
			netip.AddrFrom4([4]byte{10, 96, byte(i >> 8), byte(i)}), uint16(30000+i%30000), 443, 3600, 0)
		f.ProtoInfo.TCP = &conntrack.ProtoInfoTCP{State: 3}
		flows[j] = f
	}
	return flows
}

// TestRatioPodNode: on a node of 110 pods, the host's agent names the one
// pod whose table is pinned within 2 intervals of its filling; the
// exporter's series stay bounded (20 namespaces in rows, the rest one
// number); and the exporter scraped every 15 s costs at most 1.5× the same
// exporter on a host with one namespace, in alternating rounds, medians.
func TestRatioPodNode(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	argv, _ := consoleArgv(t)
	if len(argv) != 1 || filepath.Base(argv[0]) != "tablefull" {
		t.Skip("needs the built binary (make bench builds it)")
	}
	clitest.LowerMax(t, podCap)
	spaces, stop := podNode(t)
	t.Cleanup(stop) // also on a failure half-way
	p := &agent.Process{Argv: []string{argv[0], "agent"}, MinBackoff: time.Hour}
	p.Start(time.Second)
	an := diagnose.NewAnalyzer(60)
	for range 3 { // the walk has found the pods
		an.Add(clitest.NextSample(t, p))
	}
	pinned := spaces[len(spaces)/2]
	if err := pinned.Insert(podFlows(30, podCap-30)); err != nil {
		t.Fatal(err)
	}
	filled, named := time.Now(), -1
	for i := range 5 {
		f := an.Add(clitest.NextSample(t, p))
		if v := f.Verdict(); v.Kind == verdict.TableFull && strings.Contains(v.Text(), pinned.Name) {
			named = i + 1
			break
		}
	}
	p.Stop()
	goal(t, named > 0 && named <= 2, "110 pods: the host's agent named the pinned pod in %d intervals (%s after it filled), goal ≤ 2", named, time.Since(filled).Round(time.Millisecond))
	exporterCost := func() (float64, int) {
		pid, stop := daemon(t, argv[0], "exporter", "--listen", "127.0.0.1:19878")
		defer stop()
		const url = "http://127.0.0.1:19878/metrics"
		time.Sleep(3 * time.Second)
		scrapeEvery(t, time.Second, time.Second, url) // the warm-up scrape
		a, start := cpuNanos(t, pid), time.Now()
		for range 4 {
			time.Sleep(15 * time.Second)
			scrapeEvery(t, time.Second, time.Second, url)
		}
		cost := (cpuNanos(t, pid) - a) / time.Since(start).Seconds() / 1e3
		return cost, netnsSeries(t, url)
	}
	const rounds = 3
	var node, one []float64
	rows := 0
	for round := range rounds {
		if round > 0 {
			_, stop = podNode(t)
			t.Cleanup(stop)
		}
		c, n := exporterCost()
		node, rows = append(node, c), max(rows, n)
		stop()
		c, _ = exporterCost()
		one = append(one, c)
	}
	goal(t, rows <= model.MaxNamespaceRows, "110 pods: the exporter served %d namespaces as rows (the rest one number), goal ≤ %d", rows, model.MaxNamespaceRows)
	m, o := median(node), median(one)
	goal(t, m <= 1.5*o, "exporter on a node of 110 pods, scraped every 15 s: %.0f µs/s; with its own namespace only %.0f µs/s: %.2f× (goal ≤ 1.5×)", m, o, m/o)
	fmt.Printf("    rounds: 110 pods %.0f, one %.0f µs/s\n", node, one)
}

// netnsSeries is how many namespaces the exposition at url names in its
// per-namespace series.
func netnsSeries(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	names := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^tablefull_netns_conntrack_entries\{[^}]*netns="([^"]*)"`).FindAllStringSubmatch(string(body), -1) {
		names[m[1]] = true
	}
	return len(names)
}
