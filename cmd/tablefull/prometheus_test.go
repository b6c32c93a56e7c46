package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/remote/promread"
	"github.com/tablefull/tablefull/sources/netns"
)

// freePort is a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitHTTP waits for url to answer 200.
func waitHTTP(t *testing.T, url string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	t.Fatalf("%s did not answer within %s", url, within)
}

// startDaemon runs cmd until the test ends, then stops it with SIGTERM
// (SIGKILL after 5 s) and waits for it.
func startDaemon(t *testing.T, cmd *exec.Cmd) {
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

// startHostExporter runs `tablefull exporter` for this host on a free
// loopback port with args, and returns its address and pid once it
// answers.
func startHostExporter(t *testing.T, args ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	exp := exec.Command(exe, append([]string{"exporter", "--web.listen-address", addr}, args...)...)
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	startDaemon(t, exp)
	waitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
	return addr, exp.Process.Pid
}

// startExporter runs `tablefull exporter --netns ns` on a free loopback
// port with interval and returns its address, once it answers, and pid.
func startExporter(t *testing.T, ns, interval string, extra ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	exp := exec.Command(exe, append([]string{"exporter", "--netns", ns, "--listen", addr, "--interval", interval}, extra...)...)
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	startDaemon(t, exp)
	waitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
	return addr, exp.Process.Pid
}

// prometheusConfig writes a config into dir that scrapes the targets
// every interval with the shipped rules, and returns its path.
func prometheusConfig(t *testing.T, dir, interval string, targets ...string) string {
	t.Helper()
	rules, _ := filepath.Abs("../../deploy/prometheus/tablefull.rules.yml")
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global: {scrape_interval: %s, evaluation_interval: 1s}
rule_files: [%q]
scrape_configs:
  - job_name: tablefull
    static_configs: [{targets: ["%s"]}]
`, interval, rules, strings.Join(targets, `", "`))), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

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

// startPrometheus runs Debian's prometheus on loopback with the shipped
// rules, scraping the targets every second, and returns its API and URL.
func startPrometheus(t *testing.T, targets ...string) (promv1.API, string) {
	t.Helper()
	return startPrometheusEvery(t, "1s", targets...)
}

// startPrometheusEvery is startPrometheus scraping every interval.
func startPrometheusEvery(t *testing.T, interval string, targets ...string) (promv1.API, string) {
	t.Helper()
	dir := t.TempDir()
	return runPrometheus(t, dir, prometheusConfig(t, dir, interval, targets...))
}

// runPrometheus runs Debian's prometheus on loopback with the config
// file cfg and its data in dir, and returns its API and URL once ready.
func runPrometheus(t *testing.T, dir, cfg string) (promv1.API, string) {
	t.Helper()
	port := freePort(t)
	startDaemon(t, exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHTTP(t, url+"/-/ready", 30*time.Second)
	client, err := api.NewClient(api.Config{Address: url})
	if err != nil {
		t.Fatal(err)
	}
	return promv1.NewAPI(client), url
}

// vector runs an instant query and returns its samples by the label l.
func vector(t *testing.T, p promv1.API, query, l string) map[string]float64 {
	t.Helper()
	v, _, _, err := p.Query(context.Background(), query, time.Now())
	if err != nil {
		t.Fatalf("query %s: %v", query, err)
	}
	out := map[string]float64{}
	vec, _ := v.(pmodel.Vector)
	for _, s := range vec {
		out[string(s.Metric[pmodel.LabelName(l)])] = float64(s.Value)
	}
	return out
}

// TestExporterOnRealPrometheus: a real Prometheus scrapes the exporter of
// a namespace whose table the test pins; the shipped table-full alert
// fires, and the peak and per-CPU drops Prometheus holds are what the
// kernel and conntrack -S say.
func TestExporterOnRealPrometheus(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "prometheus")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	ns := clitest.LabNS(t)
	// A short hold: the pinned table still admits a few new entries a
	// second (64 ÷ 5 s), which the exporter counts by class.
	setNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait", 5)
	addr, _ := startExporter(t, ns.Name, "1s", "--per-cpu-series")
	prom, promURL := startPrometheus(t, addr)
	// Its HA twin scrapes the same exporter, at another interval: each
	// reads the same numbers, neither takes them from the other.
	twin, _ := startPrometheusEvery(t, "5s", addr)

	srv := &netns.Server{Body: []byte("object\n")}
	if err := ns.Serve("127.0.0.1:18080", srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	time.Sleep(3 * time.Second) // a few quiet scrapes first
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
	if peak := vector(t, twin, `max_over_time(tablefull_conntrack_entries_peak[5m])`, "instance"); peak[addr] != capMax {
		t.Errorf("the twin's peak %v, want the cap %d: the 1 s scraper took it", peak, capMax)
	}
	if peak := vector(t, prom, `max_over_time(tablefull_conntrack_entries_peak[5m])`, "instance"); peak[addr] != capMax {
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
		for i, row := range parseConntrackS(t, cs) {
			want[strconv.Itoa(i)] = float64(row["drop"])
		}
		got = vector(t, prom, `tablefull_conntrack_cpu_events_total{counter="drop"}`, "cpu")
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
	if got := vector(t, prom, `tablefull_conntrack_new_entries_total{class="tcp-closed"}`, "instance"); got[addr] <= 0 {
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
