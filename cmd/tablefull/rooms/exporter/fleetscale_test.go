package exporter

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	fleetmodel "github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestFleetAtAHundredThousand: 1,000 and 100,000 hosts' exporter series
// (10,000 in the test suite, 100,000 under make bench: fleetSizes)
// (every verdict kind each, three minutes of them, a few hundred pinned
// and dropping) in a real Prometheus (promtool's backfill) and a real
// VictoriaMetrics (its import): each refresh is the same thirteen queries
// whatever the fleet, the engine counts and ranks the scores the
// exporters serve (and the verdicts of those serving none); the totals, the
// ranking across its kinds, a narrowing by label and a page deep in the
// ranking are each as the data says; the console in tmux at 200×50 and
// 80×24 shows the totals and the worst pinned host first within 5 s,
// drills into it and comes back, in at most 100 MB; its memory and its
// own share of a refresh at the larger fleet are within 20 % of those at
// 1,000, and a refresh's answers are a page's at both.
func TestFleetAtAHundredThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a fleet's series into two engines")
	}
	// touches no conntrack knob: the engines and the console beside the
	// kernel tests (its time to screen is bounded by 5 s, its cost is the
	// console's CPU and memory, which other tests' load does not add to),
	// after every room's serial tests, which time the machine
	nstest.Parallel(t, nstest.Claim{Heavy: true}) // two engines import a fleet
	for _, engine := range []struct {
		name  string
		start func(*testing.T, clitest.SyntheticFleet) string
		// loads is about how long the engine takes to take in 100,000
		// hosts here: their series end then, as a live exporter's would
		loads time.Duration
	}{{"prometheus", prometheusOver, 150 * time.Second}, {"victoriametrics", victoriaMetricsOver, 60 * time.Second}} {
		t.Run(engine.name, func(t *testing.T) {
			var small, big consoleCost
			for _, n := range fleetSizes {
				start := time.Now()
				f := clitest.SyntheticFleet{N: n, Now: start.Add(engine.loads * time.Duration(n) / 100000).Truncate(time.Second), Points: 5, Step: 30 * time.Second, Ahead: 8}
				url := engine.start(t, f)
				t.Logf("%s: %d hosts' series in the engine in %s", engine.name, n, time.Since(start).Round(time.Second))
				time.Sleep(time.Until(f.Now)) // the series' now: what comes after it shows as its time comes
				cost := checkFleetAnswers(t, url, f)
				checkRecordedAnswers(t, url, f)
				cost.rssKB, cost.refresh = fleetConsole(t, url, f)
				rec := recordedCost(t, url, f)
				cost.recorded = rec.took
				t.Logf("%s, %d hosts: the console's peak RSS %.1f MB; a refresh of the raw queries (median of 9): %d bytes answered, %s, of it %s the console's own; "+
					"one of the recordings (median of 15): %d bytes, %s, of it %s its own; on its status line: %s",
					engine.name, n, float64(cost.rssKB)/1024, cost.bytes, cost.took, cost.own, rec.bytes, rec.took, rec.own, cost.refresh)
				if n == fleetSizes[0] {
					small = cost
				} else {
					big = cost
				}
			}
			for _, c := range []struct {
				what       string
				small, big float64
			}{
				{"peak RSS", float64(small.rssKB), float64(big.rssKB)},
				// a few milliseconds of the console's CPU (not wall time:
				// the engine computes beside it on the same CPUs); 2 ms of
				// slack, as a page of pinned hosts has more series to
				// decode than one of quiet hosts
				{"own time a refresh", float64(small.own + 2*time.Millisecond), float64(big.own)},
			} {
				if r := c.big / c.small; r > 1.2 || (r < 1/1.2 && c.what == "peak RSS") {
					t.Errorf("the console's %s at %d hosts is %.2f× that at %d", c.what, fleetSizes[1], r, fleetSizes[0])
				}
			}
			// the wall time of a refresh read from the recordings: the
			// engine's work on the whole fleet is its rules', between
			// refreshes (benchSizes says how it is held)
			switch {
			case benchSizes && float64(big.recorded) > 1.2*float64(small.recorded):
				t.Errorf("a refresh from the recordings at %d hosts took %s, %.2f× its %s at %d", fleetSizes[1], big.recorded, float64(big.recorded)/float64(small.recorded), small.recorded, fleetSizes[0])
			case !benchSizes && 4*big.recorded > big.took:
				t.Errorf("a refresh from the recordings at %d hosts took %s, over a quarter of the raw queries' %s", fleetSizes[1], big.recorded, big.took)
			}
			// the answers are the page's: a page of pinned hosts has more
			// series a row than one of quiet hosts, so their bytes differ
			// by what the page holds, but never grow with the fleet
			for _, c := range []consoleCost{small, big} {
				if c.bytes > maxPageAnswerBytes {
					t.Errorf("a refresh of a page of 50 was answered %d bytes, over %d", c.bytes, maxPageAnswerBytes)
				}
			}
		})
	}
}

// maxPageAnswerBytes bounds what one refresh of a page of 50 rows is
// answered: about a kilobyte a row, and the totals' and ranking's few.
const maxPageAnswerBytes = 80 << 10

// checkFleetAnswers asks the engine as the console does and holds the
// answers to what the fleet is: totals, the ranking over its kinds, a
// page deep in it, a narrowing by label; it logs each refresh's queries
// and answer sizes, and returns a refresh's median cost.
func checkFleetAnswers(t *testing.T, url string, f clitest.SyntheticFleet) consoleCost {
	t.Helper()
	r, err := promread.New(promread.Config{URL: url, Selector: `job="tablefull"`, Window: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ask := func(v fleetmodel.View) fleetmodel.Page {
		t.Helper()
		p, err := r.Fleet(context.Background(), time.Now(), v)
		if err != nil {
			t.Fatalf("%d hosts, view %+v: %v", f.N, v, err)
		}
		t.Logf("%d hosts, view %+v: %d queries, %d bytes answered, in %s", f.N, v, p.Cost.Queries, p.Cost.Bytes, p.Cost.Took.Round(time.Millisecond))
		if p.Cost.Queries != promread.FleetQueries {
			t.Errorf("a refresh sent %d queries, want %d", p.Cost.Queries, promread.FleetQueries)
		}
		return p
	}
	p := ask(fleetmodel.View{Limit: 50})
	checkTotals(t, f, p.Totals)
	want := ranking(f)
	checkPage(t, f, p, want)
	checkPage(t, f, ask(fleetmodel.View{Offset: max(0, f.Count(clitest.PinnedHost)-3), Limit: 30}), want)

	narrowed := ask(fleetmodel.View{Narrow: `cluster=c07`, Limit: 20})
	if narrowed.Totals.Hosts != f.N/20 || len(narrowed.Rows) == 0 {
		t.Errorf("narrowed to cluster c07: %d hosts, %d rows; want %d", narrowed.Totals.Hosts, len(narrowed.Rows), f.N/20)
	}
	for _, row := range narrowed.Rows {
		if !strings.Contains(row.Labels, "cluster=c07") {
			t.Errorf("narrowed to cluster c07, a row of %s (%s)", row.Instance, row.Labels)
		}
	}
	worst := want[0]
	_, samples, err := r.History(context.Background(), clitest.FleetInstance(worst), time.Now(), 30*time.Minute, 0)
	// VictoriaMetrics aligns a range's start to its step: a point less
	if err != nil || len(samples) < f.Points-1 || samples[len(samples)-1].Conntrack.Count != clitest.SyntheticLimit {
		t.Errorf("the drill-down into %s: %d samples, %v", clitest.FleetInstance(worst), len(samples), err)
	}
	var costs []fleetmodel.Cost
	for range 9 {
		costs = append(costs, ask(fleetmodel.View{Limit: 50}).Cost)
	}
	return medianCost(costs)
}

// medianCost is the median of refreshes' costs, each figure apart.
func medianCost(costs []fleetmodel.Cost) consoleCost {
	median := func(of func(fleetmodel.Cost) int64) int64 {
		v := make([]int64, len(costs))
		for i, c := range costs {
			v[i] = of(c)
		}
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	return consoleCost{
		bytes: median(func(c fleetmodel.Cost) int64 { return c.Bytes }),
		took:  time.Duration(median(func(c fleetmodel.Cost) int64 { return int64(c.Took) })).Round(time.Millisecond),
		own:   time.Duration(median(func(c fleetmodel.Cost) int64 { return int64(c.Own) })).Round(10 * time.Microsecond),
	}
}

// checkTotals holds a page's totals to what the fleet is.
func checkTotals(t *testing.T, f clitest.SyntheticFleet, tot fleetmodel.Totals) {
	t.Helper()
	pinned, nat, near, stale := f.Count(clitest.PinnedHost), f.Count(clitest.NatHost), f.Count(clitest.NearHost), f.Count(clitest.StaleHost)
	if tot.Hosts != f.N || tot.Pinned != pinned || tot.Dropping != pinned || tot.Stale != stale ||
		tot.Kinds[verdict.TableFull] != pinned || tot.Kinds[verdict.NATPorts] != nat || tot.Kinds[verdict.NearCap] != near {
		t.Errorf("totals %+v; want %d hosts, %d pinned and dropping, %d NAT PORTS, %d NEAR CAP, %d stale", tot, f.N, pinned, nat, near, stale)
	}
	if got := tot.Unscored; got != near { // the near-cap hosts' exporters serve no score
		t.Errorf("%d hosts unscored, want the %d near cap", got, near)
	}
}

// ranking is the fleet's hosts worst first: the pinned by their drops
// (the highest instance drops most), then NAT PORTS, then the stale,
// then NEAR CAP, then the quiet; hosts of a state other than pinned tie.
func ranking(f clitest.SyntheticFleet) []int {
	var want []int
	for _, st := range []clitest.HostState{clitest.PinnedHost, clitest.NatHost, clitest.StaleHost, clitest.NearHost, clitest.QuietHost} {
		var of []int
		for i := range f.N {
			if f.State(i) == st {
				of = append(of, i)
			}
		}
		if st == clitest.PinnedHost {
			sort.Sort(sort.Reverse(sort.IntSlice(of)))
		}
		want = append(want, of...)
	}
	return want
}

// checkPage holds a page's rows to the ranking want (hosts by rank),
// from the page's offset: a pinned host at its very rank, any other
// of the state its rank has (they tie).
func checkPage(t *testing.T, f clitest.SyntheticFleet, p fleetmodel.Page, want []int) {
	t.Helper()
	for i, row := range p.Rows {
		rank := p.Offset + i
		w := want[rank]
		var inst int
		fmt.Sscanf(row.Instance, "node-%d:", &inst)
		if f.State(inst) != f.State(w) || (f.State(w) == clitest.PinnedHost && inst != w) {
			got := make([]string, len(p.Rows))
			for j, r := range p.Rows {
				got[j] = r.Instance + " " + string(r.Verdict())
			}
			t.Fatalf("rank %d is %s, want %s or a host like it; the page from %d:\n%s", rank+1, row.Instance, clitest.FleetInstance(w), p.Offset+1, strings.Join(got, "\n"))
		}
	}
}

// consoleCost is what the console took over a fleet: its peak RSS, a
// refresh as its status line said it, and a refresh measured in the
// test: the bytes answered, the time, and the reader's own part of it.
type consoleCost struct {
	rssKB     int
	refresh   string
	bytes     int64
	took, own time.Duration
	// recorded is a refresh's time read from the recording rules
	recorded time.Duration
}

// refreshLine is the fleet's status line's cost of a refresh.
var refreshLine = regexp.MustCompile(`(\d+) queries, ([\d.,]+ [kKMG]?i?B) in ([\d.]+ ?m?s)`)

// fleetConsole drives the console over the engine in tmux at 200×50 and
// 80×24: the totals and the worst pinned host within 5 s, enter into its
// history, esc back. It returns the console's peak RSS in kB (the larger
// of the two) and the refresh its status line gave.
func fleetConsole(t *testing.T, url string, f clitest.SyntheticFleet) (int, string) {
	t.Helper()
	worst := 0
	for i := range f.N {
		if f.State(i) == clitest.PinnedHost {
			worst = i
		}
	}
	var rssKB int
	refresh := ""
	for _, size := range [][2]int{{200, 50}, {80, 24}} {
		// no selector and the default window: the recordings' refresh
		s := clitest.StartTmux(t, size[0], size[1], "", "--prometheus", url)
		start := time.Now()
		totals := fmt.Sprintf("%s hosts · %d pinned", thousands(f.N), f.Count(clitest.PinnedHost))
		screen := s.WaitWithin(5*time.Second, totals, clitest.FleetInstance(worst), "TABLE FULL")
		t.Logf("%d hosts at %dx%d, on screen in %s:\n%s", f.N, size[0], size[1], time.Since(start).Round(time.Millisecond), screen)
		if m := refreshLine.FindStringSubmatch(screen); m != nil {
			refresh = m[0]
		} else if size[0] == 200 {
			t.Errorf("the status line does not say the refresh's cost:\n%s", screen)
		}
		if size[0] == 200 && !strings.Contains(screen, "totals recorded") {
			t.Errorf("the first screen was not read from the recordings:\n%s", screen)
		}
		lines := strings.Split(screen, "\n")
		for i, l := range lines {
			if strings.Contains(l, "node-") {
				if !strings.Contains(l, clitest.FleetInstance(worst)) {
					t.Errorf("the first row is not the worst pinned host %s: %q (line %d)", clitest.FleetInstance(worst), l, i)
				}
				break
			}
		}
		s.Keys("Enter")
		s.WaitWithin(30*time.Second, "history from Prometheus", "TABLE FULL")
		s.Keys("Escape")
		s.WaitFor("tablefull fleet", totals)
		pids := clitest.ProcsUnder(s.PanePID(), func(argv []string) bool {
			return len(argv) > 1 && strings.Contains(strings.Join(argv, " "), "--prometheus")
		})
		if len(pids) == 0 {
			t.Fatal("no console under the pane")
		}
		kb := int(clitest.StatusField(pids[0], "VmHWM:"))
		if kb > 100*1024 {
			t.Errorf("%d hosts at %dx%d: the console's peak RSS is %.1f MB, over 100 MB", f.N, size[0], size[1], float64(kb)/1024)
		}
		rssKB = max(rssKB, kb)
		s.Keys("q")
		s.WaitFor("EXIT=0")
	}
	return rssKB, refresh
}

// thousands writes n as the console does: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
