package clitest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	fleetmodel "github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
)

// StartDaemon runs cmd until the test ends, then stops it with SIGTERM
// (SIGKILL after 5 s) and waits for it.
func StartDaemon(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	// A test binary killed mid-run (a timeout, ^C) runs no Cleanup: the
	// daemon gets SIGKILL when it dies instead of living on under init.
	// The signal follows the thread that started it, and Go ends threads
	// (a goroutine that locked one for setns), so the daemon is started
	// from a thread locked until the daemon is gone.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	started, gone := make(chan error), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		started <- cmd.Start()
		<-gone
	}()
	if err := <-started; err != nil {
		close(gone)
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		defer close(gone)
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// SyntheticFleet is n hosts' exporter series under the exporter's own
// names and labels (a tablefull_verdict series for every kind, 0 or 1),
// points of them step apart up to now, each host with its cluster and
// zone. In the proportions a large fleet's incident has: one host in 333
// pinned and dropping (TABLE FULL), one in 5,000 out of NAT ports, one in
// 1,000 near its cap, one in 2,000 stale (silent for the last minute and
// more); the rest quiet.
type SyntheticFleet struct {
	N      int
	Now    time.Time
	Points int
	Step   time.Duration
	// ahead are points past now of the series a live exporter keeps
	// fresh (its last sample's time, the counters rate() reads): the
	// engine shows each as its time comes, so a console that starts a
	// while after now still sees hosts answering and tables dropping.
	Ahead int
}

// HostState is one synthetic host's incident.
type HostState int

const (
	QuietHost HostState = iota
	PinnedHost
	NatHost
	NearHost
	StaleHost
)

// State is host inst's state in the fleet.
func (f SyntheticFleet) State(inst int) HostState {
	switch {
	case inst%333 == 7:
		return PinnedHost
	case inst%5000 == 11:
		return NatHost
	case inst%1000 == 13:
		return NearHost
	case inst%2000 == 17:
		return StaleHost
	}
	return QuietHost
}

// Count is how many of the n hosts are in state s.
func (f SyntheticFleet) Count(s HostState) int {
	c := 0
	for i := range f.N {
		if f.State(i) == s {
			c++
		}
	}
	return c
}

// FleetInstance is host inst's instance label.
func FleetInstance(inst int) string { return fmt.Sprintf("node-%06d:9874", inst) }

// SyntheticLimit is the cap every synthetic host has.
const SyntheticLimit = 262144

// series is one of the exporter's series of a host: its name, extra
// labels and value at point i.
type series struct {
	name, labels string
	value        func(st HostState, inst, i int) float64
	// labelsOf, when set, are the labels by the host's state instead
	labelsOf func(st HostState) string
	// ahead says the series goes on past now (see syntheticFleet.ahead)
	ahead bool
	// skip, when set, leaves out the hosts of the states it is true for
	skip func(st HostState) bool
}

// seriesOf are the series every host exports that the fleet view reads.
func (f SyntheticFleet) seriesOf() []series {
	entries := func(st HostState, inst, _ int) float64 {
		switch st {
		case PinnedHost:
			return SyntheticLimit
		case NearHost:
			return 0.93 * SyntheticLimit
		}
		return float64(1000 + inst%5000)
	}
	out := []series{
		{"tablefull_conntrack_entries", "", entries, nil, false, nil},
		{"tablefull_conntrack_entries_peak", "", entries, nil, false, nil},
		{"tablefull_conntrack_entries_limit", "", func(HostState, int, int) float64 { return SyntheticLimit }, nil, false, nil},
		{"tablefull_conntrack_pinned_seconds_total", "", func(st HostState, _, i int) float64 {
			return map[bool]float64{true: float64(i) * f.Step.Seconds()}[st == PinnedHost]
		}, nil, true, nil},
		{"tablefull_conntrack_pinned_episodes_total", "", func(st HostState, _, _ int) float64 { return map[bool]float64{true: 1}[st == PinnedHost] }, nil, false, nil},
		{"tablefull_last_sample_timestamp_seconds", "", func(_ HostState, _, i int) float64 { return float64(f.at(i).Unix()) }, nil, true, nil},
		{"tablefull_conntrack_events_total", `counter="drop",`, func(st HostState, inst, i int) float64 {
			return map[bool]float64{true: float64(i * (3000 + inst))}[st == PinnedHost] // each its own rate: one order
		}, nil, true, nil},
		{"tablefull_conntrack_events_total", `counter="early_drop",`, func(HostState, int, int) float64 { return 0 }, nil, true, nil},
	}
	holds := map[HostState]verdict.Kind{PinnedHost: verdict.TableFull, NatHost: verdict.NATPorts, NearHost: verdict.NearCap}
	for _, k := range diagnose.ProblemKinds() {
		out = append(out, series{"tablefull_verdict", `kind="` + k.Label() + `",`, func(st HostState, _, _ int) float64 {
			return map[bool]float64{true: 1}[holds[st] == k]
		}, nil, false, nil})
	}
	worst := series{name: "tablefull_verdict_worst", value: func(HostState, int, int) float64 { return 1 }}
	worst.labelsOf = func(st HostState) string {
		if k, ok := holds[st]; ok {
			return `kind="` + k.Label() + `",`
		}
		return `kind="` + verdict.OK.Label() + `",`
	}
	out = append(out, worst)
	// the score an exporter serves (fleetmodel.Score): every host's but the
	// near-cap ones', as exporters too old to serve it, which the
	// console ranks by their verdict alone
	score := series{name: "tablefull_fleet_score", ahead: true, value: func(st HostState, inst, _ int) float64 {
		row := fleetmodel.Row{Count: uint64(entries(st, inst, 0)), Limit: SyntheticLimit}
		if k, ok := holds[st]; ok {
			row.Kinds = []verdict.Kind{k}
		}
		if st == PinnedHost {
			row.DropsPS = float64(3000+inst) / f.Step.Seconds()
		}
		return fleetmodel.Score(row)
	}}
	score.skip = func(st HostState) bool { return st == NearHost }
	return append(out, score)
}

// at is point i's time.
func (f SyntheticFleet) at(i int) time.Time {
	return f.Now.Add(-time.Duration(f.Points-1-i) * f.Step)
}

// Write writes every series as OpenMetrics (timestamps in seconds, each
// family whole, as promtool's backfill wants) or as Prometheus's text
// format (timestamps in milliseconds, as VictoriaMetrics imports it). A
// stale host's last points are left out.
func (f SyntheticFleet) Write(w io.Writer, openMetrics bool) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	last := ""
	for _, s := range f.seriesOf() {
		if s.name != last && openMetrics {
			fmt.Fprintf(bw, "# TYPE %s gauge\n", s.name)
		}
		last = s.name
		for inst := range f.N {
			st := f.State(inst)
			if s.skip != nil && s.skip(st) {
				continue
			}
			labels := s.labels
			if s.labelsOf != nil {
				labels = s.labelsOf(st)
			}
			for i := range f.Points + map[bool]int{true: f.Ahead}[s.ahead] {
				if st == StaleHost && f.at(i).After(f.Now.Add(-2*time.Minute)) {
					break
				}
				ts := f.at(i).UnixMilli()
				if openMetrics {
					ts /= 1000
				}
				fmt.Fprintf(bw, "%s{%sinstance=%q,job=\"tablefull\",cluster=\"c%02d\",zone=\"z%d\"} %g %d\n",
					s.name, labels, FleetInstance(inst), inst%20, inst%3, s.value(st, inst, i), ts)
			}
		}
	}
	if openMetrics {
		fmt.Fprintln(bw, "# EOF")
	}
	return bw.Flush()
}

// PrometheusOver backfills the fleet into TSDB blocks with promtool and
// starts Debian's Prometheus over them on loopback, evaluating the rules
// files given; it returns its URL.
func PrometheusOver(t *testing.T, f SyntheticFleet, rules ...string) string {
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
	if err := f.Write(om, true); err != nil {
		t.Fatal(err)
	}
	om.Close()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command("promtool", "tsdb", "create-blocks-from", "openmetrics", om.Name(), data).CombinedOutput(); err != nil {
		t.Fatalf("promtool backfill: %v\n%s", err, out)
	}
	os.Remove(om.Name())
	cfg := filepath.Join(dir, "prometheus.yml")
	config := "global: {scrape_interval: 1m}\n"
	if len(rules) > 0 {
		// the backfill's blocks reach past now (Ahead): the rules'
		// samples at now are older than the newest block, which the
		// head takes only into its out-of-order window
		config += "rule_files: [" + strings.Join(rules, ", ") + "]\nstorage: {tsdb: {out_of_order_time_window: 1h}}\n"
	}
	os.WriteFile(cfg, []byte(config), 0o644)
	port := FreePort(t)
	StartDaemon(t, exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+data,
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	WaitHTTP(t, url+"/-/ready", 2*time.Minute)
	return url
}
