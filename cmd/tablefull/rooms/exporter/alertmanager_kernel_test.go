package exporter

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// notification is what Alertmanager's webhook posts: its alerts.
type notification struct {
	Alerts []struct {
		Status      string            `json:"status"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"alerts"`
}

// webhook receives Alertmanager's notifications.
type webhook struct {
	mu   sync.Mutex
	seen []notification
}

func (h *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n notification
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&n); err == nil {
		h.mu.Lock()
		h.seen = append(h.seen, n)
		h.mu.Unlock()
	}
}

// alerts are the alerts notified so far named alertname, by instance,
// with their description.
func (h *webhook) alerts(alertname string) map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]string{}
	for _, n := range h.seen {
		for _, a := range n.Alerts {
			if a.Labels["alertname"] == alertname && a.Status == "firing" {
				out[a.Labels["instance"]] = a.Annotations["description"]
			}
		}
	}
	return out
}

// startAlertmanager runs Debian's Alertmanager on loopback with the
// shipped configuration, its receiver posting to hook, and returns its
// URL once ready.
func startAlertmanager(t *testing.T, hook string) string {
	t.Helper()
	dir := t.TempDir()
	shipped, err := os.ReadFile("../../../../deploy/prometheus/alertmanager.yml")
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(string(shipped), "    # webhook_configs, email_configs, pagerduty_configs...: your own.",
		fmt.Sprintf("    webhook_configs: [{url: %q, send_resolved: false}]", hook), 1)
	if conf == string(shipped) {
		t.Fatal("the shipped configuration's receiver was not found")
	}
	cfg := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	port := clitest.FreePort(t)
	clitest.StartDaemon(t, exec.Command("prometheus-alertmanager", "--config.file="+cfg, "--storage.path="+dir,
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--cluster.listen-address=", "--log.level=warn"))
	where := fmt.Sprintf("http://127.0.0.1:%d", port)
	clitest.WaitHTTP(t, where+"/-/ready", 30*time.Second)
	return where
}

// suppressedBy is what Alertmanager's API says of the alert alertname of
// instance: its state and the alerts that inhibit it.
func suppressedBy(t *testing.T, am, alertname, instance string) (state string, inhibitedBy []string) {
	t.Helper()
	resp, err := http.Get(am + "/api/v2/alerts?filter=" + url.QueryEscape(fmt.Sprintf("alertname=%q", alertname)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var alerts []struct {
		Labels map[string]string `json:"labels"`
		Status struct {
			State       string   `json:"state"`
			InhibitedBy []string `json:"inhibitedBy"`
		} `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&alerts); err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.Labels["instance"] == instance {
			return a.Status.State, a.Status.InhibitedBy
		}
	}
	return "", nil
}

// TestAlertNamesTheCause: from a full table to the page that names its
// cause. Two namespaces of one node, each with its exporter (--netns),
// scraped by a real Prometheus with the shipped rules at 1 s, which
// sends to a real Alertmanager with the shipped inhibition. A process of
// the test's own holds established connections until the first table is
// at its cap and keeps trying for more: the one table-full notification
// names the class (tcp-open: established), the owner (python3), the
// proposed nf_conntrack_max with its value now and proposed and the
// memory it adds, and the live view's command, within 90 s. The second
// namespace then comes near its cap: its NEAR CAP fires in Prometheus
// and Alertmanager holds it inhibited by the first's TABLE FULL — no
// page for it. The fleet view, in tmux at 200×50 and 80×24, lists the
// alerts firing beside the hosts' rows, the inhibited one marked.
func TestAlertNamesTheCause(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 64, Servers: true})
	clitest.NeedKernel(t, "prometheus", "prometheus-alertmanager", "python3")
	const capMax = 64
	clitest.LowerMax(t, capMax)
	full, near := clitest.LabNS(t), clitest.LabNS(t)
	fullAddr, _ := clitest.StartExporter(t, full.Name, "1s")
	nearAddr, _ := clitest.StartExporter(t, near.Name, "1s")
	hook := &webhook{}
	hs := httptest.NewServer(hook)
	defer hs.Close()
	am := startAlertmanager(t, hs.URL)
	dir := t.TempDir()
	rules, _ := filepath.Abs("../../../../deploy/prometheus/tablefull.rules.yml")
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [%q]
alerting: {alertmanagers: [{static_configs: [{targets: [%q]}]}]}
scrape_configs:
  - job_name: tablefull
    static_configs: [{targets: [%q, %q], labels: {node: node-1}}]
`, rules, strings.TrimPrefix(am, "http://"), fullAddr, nearAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	prom, promURL := clitest.RunPrometheus(t, dir, cfg)

	// Near the cap first, where the exporter's census names the owners;
	// then to the cap, where the page is rendered with them.
	start := time.Now()
	if held := clitest.HoldConnections(t, full, 18091, capMax-6, false); held != capMax-6 {
		t.Fatalf("the holder held %d connections, want %d", held, capMax-6)
	}
	for deadline := time.Now().Add(30 * time.Second); len(clitest.Vector(t, prom, `tablefull_conntrack_owner_entries{comm="python3"}`, "instance")) == 0; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the census never named the holder in Prometheus")
		}
	}
	clitest.HoldConnections(t, full, 18092, capMax, true)
	var page string
	for deadline := start.Add(90 * time.Second); page == ""; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no table-full notification within 90 s; notified: %+v", hook.alerts("ConntrackTableFull"))
		}
		page = hook.alerts("ConntrackTableFull")[fullAddr]
	}
	t.Logf("the page: %s", page)
	for _, want := range []string{"What fills it: tcp-open entries", "Who: python3", "net.netfilter.nf_conntrack_max 64 → ", "the table's memory at its cap +", "tablefull --ssh 127.0.0.1"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}

	// The second namespace of the node comes near its cap: inhibited.
	clitest.HoldConnections(t, near, 18093, capMax-4, false)
	for deadline := time.Now().Add(30 * time.Second); clitest.Vector(t, prom, `ALERTS{alertname="ConntrackNearCap",alertstate="firing"}`, "instance")[nearAddr] != 1; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second namespace's NEAR CAP never fired in Prometheus")
		}
	}
	var state string
	var by []string
	for deadline := time.Now().Add(30 * time.Second); state != "suppressed"; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the second namespace's NEAR CAP in Alertmanager: %q, inhibited by %v; want suppressed by the first's TABLE FULL", state, by)
		}
		state, by = suppressedBy(t, am, "ConntrackNearCap", nearAddr)
	}
	if len(by) == 0 {
		t.Errorf("the second namespace's NEAR CAP is suppressed, but by no inhibition")
	}
	time.Sleep(12 * time.Second) // past the route's group_wait
	if d, paged := hook.alerts("ConntrackNearCap")[nearAddr]; paged {
		t.Errorf("the inhibited NEAR CAP was notified: %s", d)
	}

	// The fleet view lists what fires beside the hosts' diagnoses, the
	// inhibited marked, and drills into a host as ever.
	for _, size := range [][2]int{{200, 50}, {80, 24}} {
		s := clitest.StartTmux(t, size[0], size[1], "", "--prometheus", promURL, "--alertmanager", am, "--selector", `'job="tablefull"'`)
		screen := s.WaitFor("TABLE FULL", "firing", "suppressed: ConntrackTableFull "+fullAddr)
		t.Logf("%dx%d fleet:\n%s", size[0], size[1], screen)
		if size[0] >= 200 && !strings.Contains(screen, "ConntrackNearCap "+nearAddr+" (inhibited)") {
			t.Errorf("%dx%d: the inhibited NEAR CAP is not marked:\n%s", size[0], size[1], screen)
		}
		s.Keys("Enter")
		s.WaitFor("history from Prometheus")
		s.Keys("Escape")
		s.WaitFor("tablefull fleet")
		s.Keys("q")
		s.WaitFor("EXIT=0")
	}
}
