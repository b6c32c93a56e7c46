package clitest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	pmodel "github.com/prometheus/common/model"
)

// FreePort is a loopback port nobody listens on right now.
func FreePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// WaitHTTP waits for url to answer 200.
func WaitHTTP(t *testing.T, url string, within time.Duration) {
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

// StartHostExporter runs `tablefull exporter` for this host on a free
// loopback port with args, and returns its address and pid once it
// answers.
func StartHostExporter(t *testing.T, args ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	exp := exec.Command(exe, append([]string{"exporter", "--web.listen-address", addr}, args...)...)
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	StartDaemon(t, exp)
	WaitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
	return addr, exp.Process.Pid
}

// StartExporter runs `tablefull exporter --netns ns` on a free loopback
// port with interval and returns its address, once it answers, and pid.
func StartExporter(t *testing.T, ns, interval string, extra ...string) (string, int) {
	t.Helper()
	exe, _ := os.Executable()
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	exp := exec.Command(exe, append([]string{"exporter", "--netns", ns, "--listen", addr, "--interval", interval}, extra...)...)
	exp.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	StartDaemon(t, exp)
	WaitHTTP(t, "http://"+addr+"/metrics", 10*time.Second)
	return addr, exp.Process.Pid
}

// PrometheusConfig writes a config into dir that scrapes the targets
// every interval with the shipped rules, and returns its path.
func PrometheusConfig(t *testing.T, dir, interval string, targets ...string) string {
	t.Helper()
	rules := Repo(t, "deploy", "prometheus", "tablefull.rules.yml")
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

// StartPrometheus runs Debian's prometheus on loopback with the shipped
// rules, scraping the targets every second, and returns its API and URL.
func StartPrometheus(t *testing.T, targets ...string) (promv1.API, string) {
	t.Helper()
	return StartPrometheusEvery(t, "1s", targets...)
}

// StartPrometheusEvery is startPrometheus scraping every interval.
func StartPrometheusEvery(t *testing.T, interval string, targets ...string) (promv1.API, string) {
	t.Helper()
	dir := t.TempDir()
	return RunPrometheus(t, dir, PrometheusConfig(t, dir, interval, targets...))
}

// RunPrometheus runs Debian's prometheus on loopback with the config
// file cfg and its data in dir, and returns its API and URL once ready.
func RunPrometheus(t *testing.T, dir, cfg string) (promv1.API, string) {
	t.Helper()
	port := FreePort(t)
	StartDaemon(t, exec.Command("prometheus", "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn"))
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	WaitHTTP(t, url+"/-/ready", 30*time.Second)
	client, err := api.NewClient(api.Config{Address: url})
	if err != nil {
		t.Fatal(err)
	}
	return promv1.NewAPI(client), url
}

// Vector runs an instant query and returns its samples by the label l.
func Vector(t *testing.T, p promv1.API, query, l string) map[string]float64 {
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

// OwnerNamed reports whether an owner in set is name, its process as detail.
func OwnerNamed(set map[string]bool, name string) bool {
	for k := range set {
		if k == name || strings.HasPrefix(k, name+" (") {
			return true
		}
	}
	return false
}

// ScrapeText is the text of one scrape of url.
func ScrapeText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// MetricsText is one scrape of the exporter at addr.
func MetricsText(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s\n%s", resp.Status, b)
	}
	return string(b)
}
