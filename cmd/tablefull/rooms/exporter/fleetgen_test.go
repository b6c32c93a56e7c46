package exporter

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// victoriaMetricsOver starts Debian's VictoriaMetrics on loopback,
// imports the fleet through its Prometheus text import and makes it
// searchable, and starts vmalert over it with the fleet's recording
// rules; it returns its URL.
func victoriaMetricsOver(t *testing.T, f clitest.SyntheticFleet) string {
	t.Helper()
	if _, err := exec.LookPath("victoria-metrics"); err != nil {
		t.Skip("needs victoria-metrics (Debian's package)")
	}
	port := clitest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	clitest.StartDaemon(t, exec.Command("victoria-metrics", "-storageDataPath="+t.TempDir(), fmt.Sprintf("-httpListenAddr=127.0.0.1:%d", port),
		"-search.latencyOffset=0s", "-search.maxUniqueTimeseries=10000000", "-loggerLevel=ERROR", "-retentionPeriod=1y"))
	clitest.WaitHTTP(t, url+"/health", time.Minute)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(f.Write(pw, false)) }()
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
	// the fleet's recording rules, evaluated by vmalert into it
	clitest.StartDaemon(t, exec.Command("vmalert", "-rule="+clitest.Repo(t, "deploy", "prometheus", "tablefull-fleet.rules.yml"),
		"-datasource.url="+url, "-remoteWrite.url="+url, fmt.Sprintf("-httpListenAddr=127.0.0.1:%d", clitest.FreePort(t)), "-loggerLevel=ERROR"))
	return url
}

// prometheusOver is Debian's Prometheus over the fleet, evaluating the
// fleet's recording rules.
func prometheusOver(t *testing.T, f clitest.SyntheticFleet) string {
	return clitest.PrometheusOver(t, f, clitest.Repo(t, "deploy", "prometheus", "tablefull-fleet.rules.yml"))
}
