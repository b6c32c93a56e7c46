package exporter

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// waitFiring waits until Prometheus reports alert firing.
func waitFiring(t *testing.T, prom promv1.API, alert string, within time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		alerts, err := prom.Alerts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alerts.Alerts {
			if string(a.Labels["alertname"]) == alert && a.State == promv1.AlertStateFiring {
				return true
			}
		}
	}
	return false
}

// TestExporterOnRealPrometheus: a real Prometheus scrapes the exporter of
// a namespace whose table the test pins; the shipped table-full alert
// fires, and the peak and per-CPU drops Prometheus holds are what the
// kernel and conntrack -S say.
func TestExporterOnRealPrometheus(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 64, Servers: true})
	clitest.NeedKernel(t, "conntrack", "prometheus")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	ns := clitest.LabNS(t)
	// A short hold: the pinned table still admits a few new entries a
	// second (64 ÷ 5 s), which the exporter counts by class.
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait", 5)
	addr, _ := clitest.StartExporter(t, ns.Name, "1s", "--per-cpu-series")
	prom, promURL := clitest.StartPrometheus(t, addr)
	// Its HA twin scrapes the same exporter, at another interval: each
	// reads the same numbers, neither takes them from the other.
	twin, _ := clitest.StartPrometheusEvery(t, "5s", addr)

	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// Quiet scrapes first, on both: a scraper whose first sample came
	// after the pin had begun sees no increase of the pinned seconds
	// (the twin's first scrape falls anywhere in its 5 s, later on a
	// loaded machine, and a 3 s wait once missed it).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		quiet := `count_over_time(tablefull_conntrack_pinned_seconds_total[1m])`
		if clitest.Vector(t, prom, quiet, "instance")[addr] >= 2 && clitest.Vector(t, twin, quiet, "instance")[addr] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("neither Prometheus scraped the quiet table within 30 s")
		}
	}
	res, err := ns.Run(netns.Load{Addr: srv.Addr(), Workers: 8, Requests: 400, DialTimeout: 300 * time.Millisecond, Deadline: 5 * time.Second})
	if err != nil || res.Failed == 0 {
		t.Fatalf("load: %+v %v: the table did not refuse connections", res, err)
	}

	if !waitFiring(t, prom, "ConntrackTableFull", 30*time.Second) {
		t.Fatal("ConntrackTableFull did not fire on a real Prometheus")
	}
	if !waitFiring(t, twin, "ConntrackTableFull", 30*time.Second) {
		t.Fatal("ConntrackTableFull did not fire on the HA twin scraping every 5 s")
	}
	if peak := clitest.Vector(t, twin, `max_over_time(tablefull_conntrack_entries_peak[5m])`, "instance"); peak[addr] != capMax {
		t.Errorf("the twin's peak %v, want the cap %d: the 1 s scraper took it", peak, capMax)
	}
	if peak := clitest.Vector(t, prom, `max_over_time(tablefull_conntrack_entries_peak[5m])`, "instance"); peak[addr] != capMax {
		t.Errorf("peak in Prometheus %v, want the cap %d", peak, capMax)
	}

	// The load is over; once Prometheus has scraped the still counters,
	// its per-CPU drops are conntrack -S's.
	var want map[string]float64
	var got map[string]float64
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		cs, err := ns.Output("conntrack", "-S")
		if err != nil {
			t.Fatal(err)
		}
		want = map[string]float64{}
		for i, row := range clitest.ParseConntrackS(t, cs) {
			want[strconv.Itoa(i)] = float64(row["drop"])
		}
		got = clitest.Vector(t, prom, `tablefull_conntrack_cpu_events_total{counter="drop"}`, "cpu")
		if fmt.Sprint(got) == fmt.Sprint(want) {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("per-CPU drops in Prometheus %v, conntrack -S %v", got, want)
	}
	total := 0.0
	for _, v := range want {
		total += v
	}
	if total == 0 {
		t.Error("conntrack -S counted no drops: the test did not fill the table")
	}

	// New entries by class reach Prometheus, and the fleet's drill-down
	// reads them back into the classes the console shows.
	// Paced connections now: the pinned table admits about its ceiling,
	// counted while the table is near its cap.
	if _, err := ns.Run(netns.Load{Addr: srv.Addr(), Workers: 2, Requests: 160, Rate: 20, DialTimeout: 300 * time.Millisecond, Deadline: 8 * time.Second}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // scraped
	if got := clitest.Vector(t, prom, `tablefull_conntrack_new_entries_total{class="tcp-closed"}`, "instance"); got[addr] <= 0 {
		t.Errorf("new tcp-closed entries in Prometheus %v, want some", got)
	}
	r, err := promread.New(promread.Config{URL: promURL})
	if err != nil {
		t.Fatal(err)
	}
	_, samples, err := r.History(context.Background(), addr, time.Now(), 2*time.Minute, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	an, counted := diagnose.NewAnalyzer(len(samples)+1), false
	for _, s := range samples {
		// No node_exporter runs here: CPU, disks and TCP were not scraped,
		// and no verdict may be judged from them.
		if !s.Absent.Has(model.PartCPU) || !s.Absent.Has(model.PartDisks) || !s.Absent.Has(model.PartTCP) {
			t.Fatalf("a drill-down without node_exporter has parts %q absent, want cpu, disks, tcp", s.Absent)
		}
		f := an.Add(s)
		if ev := f.Verdict().Text(); strings.Contains(ev, "server idle") || strings.Contains(ev, "CPU 0 %") {
			t.Errorf("verdict from parts not scraped: %s", ev)
		}
		if top, ok := f.Fill.Top(); ok && f.Rates.Entries.Basis == model.BasisEvents && top.Class == model.ClassTCPDone && top.Hold == 5 {
			counted = true
		}
	}
	if !counted {
		t.Errorf("no drill-down frame of %d says tcp-closed, held 5 s, counted from events", len(samples))
	}
}
