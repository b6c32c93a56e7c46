package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/remote/promread"
)

// backfill writes n instances' metrics, points of them step apart up to
// now, as OpenMetrics and turns them into TSDB blocks in dir with promtool
// (FLEET-NOTES: how a test gets a big fleet's history without waiting).
// Instance 7 pins its table and drops; the others are quiet.
func backfill(t *testing.T, dir string, n int, now time.Time, points int, step time.Duration) {
	t.Helper()
	om := filepath.Join(t.TempDir(), "fleet.om")
	f, err := os.Create(om)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	start := now.Add(-time.Duration(points) * step)
	series := []struct {
		name  string
		value func(inst, i int) float64
	}{
		{"tablefull_conntrack_entries", func(inst, i int) float64 { return map[bool]float64{true: 4096, false: float64(100 + inst)}[inst == 7] }},
		{"tablefull_conntrack_entries_limit", func(int, int) float64 { return 4096 }},
		{"tablefull_conntrack_entries_peak", func(inst, i int) float64 { return map[bool]float64{true: 4096, false: float64(100 + inst)}[inst == 7] }},
		{"tablefull_conntrack_pinned_seconds_total", func(inst, i int) float64 {
			return map[bool]float64{true: float64(i) * step.Seconds(), false: 0}[inst == 7]
		}},
		{"tablefull_conntrack_pinned_episodes_total", func(inst, i int) float64 { return map[bool]float64{true: 1, false: 0}[inst == 7] }},
		{"tablefull_last_sample_timestamp_seconds", func(inst, i int) float64 { return float64(start.Add(time.Duration(i) * step).Unix()) }},
	}
	for _, s := range series {
		fmt.Fprintf(w, "# TYPE %s gauge\n", s.name)
		for inst := range n {
			for i := range points {
				fmt.Fprintf(w, "%s{instance=\"node-%04d:9874\",job=\"tablefull\"} %g %d\n", s.name, inst, s.value(inst, i), start.Add(time.Duration(i)*step).Unix())
			}
		}
	}
	fmt.Fprintf(w, "# TYPE tablefull_verdict gauge\n")
	for i := range points {
		fmt.Fprintf(w, "tablefull_verdict{instance=\"node-0007:9874\",job=\"tablefull\",kind=\"table_full\"} 1 %d\n", start.Add(time.Duration(i)*step).Unix())
	}
	fmt.Fprintf(w, "# TYPE tablefull_conntrack_events_total gauge\n")
	for inst := range n {
		for i := range points {
			fmt.Fprintf(w, "tablefull_conntrack_events_total{counter=\"drop\",instance=\"node-%04d:9874\",job=\"tablefull\"} %d %d\n", inst, map[bool]int{true: i * 3000, false: 0}[inst == 7], start.Add(time.Duration(i)*step).Unix())
		}
	}
	fmt.Fprintln(w, "# EOF")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out, err := exec.Command("promtool", "tsdb", "create-blocks-from", "openmetrics", om, dir).CombinedOutput(); err != nil {
		t.Fatalf("promtool backfill: %v\n%s", err, out)
	}
}

// backfilledPrometheus starts a Prometheus on loopback over a backfilled
// fleet (see backfill) and returns its URL.
func backfilledPrometheus(t *testing.T, n int, now time.Time, points int, step time.Duration) string {
	t.Helper()
	for _, tool := range []string{"prometheus", "promtool"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (Debian's prometheus package)", tool)
		}
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	backfill(t, data, n, now, points, step)
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte("global: {scrape_interval: 1m}\n"), 0o644)
	port := freePort(t)
	startDaemon(t, exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+data,
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, url+"/-/ready", 30*time.Second)
	return url
}

// TestFleetOfAThousand: a real Prometheus holding half an hour of 1,000
// instances answers the fleet view with five queries, the instance that
// pinned its table first; the drill-down into it reads its history.
func TestFleetOfAThousand(t *testing.T) {
	now := time.Now()
	url := backfilledPrometheus(t, 1000, now, 60, 30*time.Second)

	r, err := promread.New(promread.Config{URL: url, Selector: `job="tablefull"`, Window: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rows, err := r.Fleet(context.Background(), now)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1000 || rows[0].Instance != "node-0007:9874" || rows[0].DropsPS == 0 || rows[0].Pinned < 25*time.Minute {
		t.Fatalf("%d rows, first %+v", len(rows), rows[0])
	}
	if q := r.Queries(); q > 5 {
		t.Errorf("one refresh of 1,000 instances sent %d queries, want at most 5", q)
	}
	t.Logf("1,000 instances: %d queries answered in %s", r.Queries(), took)
	_, samples, err := r.History(context.Background(), "node-0007:9874", now, 30*time.Minute, 0)
	if err != nil || len(samples) < 50 || samples[len(samples)-1].Conntrack.Count != 4096 {
		t.Errorf("drill-down: %d samples, %v", len(samples), err)
	}
	if iv := samples[0].Interval; iv != 30*time.Second {
		t.Errorf("drill-down at %s, want the data's 30 s", iv)
	}
}
