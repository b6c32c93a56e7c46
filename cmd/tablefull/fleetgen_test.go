package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	fleetmodel "github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
)

// syntheticFleet is n hosts' exporter series under the exporter's own
// names and labels (a tablefull_verdict series for every kind, 0 or 1),
// points of them step apart up to now, each host with its cluster and
// zone. In the proportions a large fleet's incident has: one host in 333
// pinned and dropping (TABLE FULL), one in 5,000 out of NAT ports, one in
// 1,000 near its cap, one in 2,000 stale (silent for the last minute and
// more); the rest quiet.
type syntheticFleet struct {
	n      int
	now    time.Time
	points int
	step   time.Duration
	// ahead are points past now of the series a live exporter keeps
	// fresh (its last sample's time, the counters rate() reads): the
	// engine shows each as its time comes, so a console that starts a
	// while after now still sees hosts answering and tables dropping.
	ahead int
}

// hostState is one synthetic host's incident.
type hostState int

const (
	quietHost hostState = iota
	pinnedHost
	natHost
	nearHost
	staleHost
)

func (f syntheticFleet) state(inst int) hostState {
	switch {
	case inst%333 == 7:
		return pinnedHost
	case inst%5000 == 11:
		return natHost
	case inst%1000 == 13:
		return nearHost
	case inst%2000 == 17:
		return staleHost
	}
	return quietHost
}

// count is how many of the n hosts are in state s.
func (f syntheticFleet) count(s hostState) int {
	c := 0
	for i := range f.n {
		if f.state(i) == s {
			c++
		}
	}
	return c
}

// instance is host inst's instance label.
func instance(inst int) string { return fmt.Sprintf("node-%06d:9874", inst) }

const syntheticLimit = 262144

// series is one of the exporter's series of a host: its name, extra
// labels and value at point i.
type series struct {
	name, labels string
	value        func(st hostState, inst, i int) float64
	// labelsOf, when set, are the labels by the host's state instead
	labelsOf func(st hostState) string
	// ahead says the series goes on past now (see syntheticFleet.ahead)
	ahead bool
	// skip, when set, leaves out the hosts of the states it is true for
	skip func(st hostState) bool
}

// seriesOf are the series every host exports that the fleet view reads.
func (f syntheticFleet) seriesOf() []series {
	entries := func(st hostState, inst, _ int) float64 {
		switch st {
		case pinnedHost:
			return syntheticLimit
		case nearHost:
			return 0.93 * syntheticLimit
		}
		return float64(1000 + inst%5000)
	}
	out := []series{
		{"tablefull_conntrack_entries", "", entries, nil, false, nil},
		{"tablefull_conntrack_entries_peak", "", entries, nil, false, nil},
		{"tablefull_conntrack_entries_limit", "", func(hostState, int, int) float64 { return syntheticLimit }, nil, false, nil},
		{"tablefull_conntrack_pinned_seconds_total", "", func(st hostState, _, i int) float64 {
			return map[bool]float64{true: float64(i) * f.step.Seconds()}[st == pinnedHost]
		}, nil, true, nil},
		{"tablefull_conntrack_pinned_episodes_total", "", func(st hostState, _, _ int) float64 { return map[bool]float64{true: 1}[st == pinnedHost] }, nil, false, nil},
		{"tablefull_last_sample_timestamp_seconds", "", func(_ hostState, _, i int) float64 { return float64(f.at(i).Unix()) }, nil, true, nil},
		{"tablefull_conntrack_events_total", `counter="drop",`, func(st hostState, inst, i int) float64 {
			return map[bool]float64{true: float64(i * (3000 + inst))}[st == pinnedHost] // each its own rate: one order
		}, nil, true, nil},
		{"tablefull_conntrack_events_total", `counter="early_drop",`, func(hostState, int, int) float64 { return 0 }, nil, true, nil},
	}
	holds := map[hostState]verdict.Kind{pinnedHost: verdict.TableFull, natHost: verdict.NATPorts, nearHost: verdict.NearCap}
	for _, k := range diagnose.ProblemKinds() {
		out = append(out, series{"tablefull_verdict", `kind="` + k.Label() + `",`, func(st hostState, _, _ int) float64 {
			return map[bool]float64{true: 1}[holds[st] == k]
		}, nil, false, nil})
	}
	worst := series{name: "tablefull_verdict_worst", value: func(hostState, int, int) float64 { return 1 }}
	worst.labelsOf = func(st hostState) string {
		if k, ok := holds[st]; ok {
			return `kind="` + k.Label() + `",`
		}
		return `kind="` + verdict.OK.Label() + `",`
	}
	out = append(out, worst)
	// the score an exporter serves (fleetmodel.Score): every host's but the
	// near-cap ones', as exporters too old to serve it, which the
	// console ranks by their verdict alone
	score := series{name: "tablefull_fleet_score", ahead: true, value: func(st hostState, inst, _ int) float64 {
		row := fleetmodel.Row{Count: uint64(entries(st, inst, 0)), Limit: syntheticLimit}
		if k, ok := holds[st]; ok {
			row.Kinds = []verdict.Kind{k}
		}
		if st == pinnedHost {
			row.DropsPS = float64(3000+inst) / f.step.Seconds()
		}
		return fleetmodel.Score(row)
	}}
	score.skip = func(st hostState) bool { return st == nearHost }
	return append(out, score)
}

// at is point i's time.
func (f syntheticFleet) at(i int) time.Time {
	return f.now.Add(-time.Duration(f.points-1-i) * f.step)
}

// write writes every series as OpenMetrics (timestamps in seconds, each
// family whole, as promtool's backfill wants) or as Prometheus's text
// format (timestamps in milliseconds, as VictoriaMetrics imports it). A
// stale host's last points are left out.
func (f syntheticFleet) write(w io.Writer, openMetrics bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	last := ""
	for _, s := range f.seriesOf() {
		if s.name != last && openMetrics {
			fmt.Fprintf(bw, "# TYPE %s gauge\n", s.name)
		}
		last = s.name
		for inst := range f.n {
			st := f.state(inst)
			if s.skip != nil && s.skip(st) {
				continue
			}
			labels := s.labels
			if s.labelsOf != nil {
				labels = s.labelsOf(st)
			}
			for i := range f.points + map[bool]int{true: f.ahead}[s.ahead] {
				if st == staleHost && f.at(i).After(f.now.Add(-2*time.Minute)) {
					break
				}
				ts := f.at(i).UnixMilli()
				if openMetrics {
					ts /= 1000
				}
				fmt.Fprintf(bw, "%s{%sinstance=%q,job=\"tablefull\",cluster=\"c%02d\",zone=\"z%d\"} %g %d\n",
					s.name, labels, instance(inst), inst%20, inst%3, s.value(st, inst, i), ts)
			}
		}
	}
	if openMetrics {
		fmt.Fprintln(bw, "# EOF")
	}
	return bw.Flush()
}

// prometheusOver backfills the fleet into TSDB blocks with promtool and
// starts Debian's Prometheus over them on loopback; it returns its URL.
func prometheusOver(t *testing.T, f syntheticFleet) string {
	t.Helper()
	for _, tool := range []string{"prometheus", "promtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (Debian's prometheus package)", tool)
		}
	}
	dir := t.TempDir()
	om, err := os.Create(filepath.Join(dir, "fleet.om"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.write(om, true); err != nil {
		t.Fatal(err)
	}
	om.Close()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command("promtool", "tsdb", "create-blocks-from", "openmetrics", om.Name(), data).CombinedOutput(); err != nil {
		t.Fatalf("promtool backfill: %v\n%s", err, out)
	}
	os.Remove(om.Name())
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte("global: {scrape_interval: 1m}\n"), 0o644)
	port := freePort(t)
	startDaemon(t, exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+data,
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, url+"/-/ready", 2*time.Minute)
	return url
}

// victoriaMetricsOver starts Debian's VictoriaMetrics on loopback,
// imports the fleet through its Prometheus text import and makes it
// searchable; it returns its URL.
func victoriaMetricsOver(t *testing.T, f syntheticFleet) string {
	t.Helper()
	if _, err := exec.LookPath("victoria-metrics"); err != nil {
		t.Skip("needs victoria-metrics (Debian's package)")
	}
	port := freePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	startDaemon(t, exec.Command("victoria-metrics", "-storageDataPath="+t.TempDir(), fmt.Sprintf("-httpListenAddr=127.0.0.1:%d", port),
		"-search.latencyOffset=0s", "-search.maxUniqueTimeseries=10000000", "-loggerLevel=ERROR", "-retentionPeriod=1y"))
	waitHTTP(t, url+"/health", time.Minute)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(f.write(pw, false)) }()
	resp, err := http.Post(url+"/api/v1/import/prometheus", "text/plain", pr)
	if err != nil {
		t.Fatalf("import into VictoriaMetrics: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("import into VictoriaMetrics: %s: %s", resp.Status, body)
	}
	if resp, err = http.Get(url + "/internal/force_flush"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return url
}
