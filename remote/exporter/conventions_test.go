package exporter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestExporterConventions: tablefull_build_info says the version, the
// revision, the Go version and the platform, as Prometheus's own
// exporters do; a scraper that asks for OpenMetrics gets OpenMetrics.
func TestExporterConventions(t *testing.T) {
	e := New("1.2.3")
	e.Revision = "abc123"
	e.Observe(sample(0, 10, 4096, 0))
	srv := httptest.NewServer(Handler(e, ""))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	text := string(body)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") || !strings.HasSuffix(strings.TrimSpace(text), "# EOF") {
		t.Errorf("asked for OpenMetrics, got %q ending %q", ct, text[max(0, len(text)-40):])
	}
	want := `tablefull_build_info{goarch="` + runtime.GOARCH + `",goos="` + runtime.GOOS + `",goversion="` + runtime.Version() + `",revision="abc123",version="1.2.3"} 1`
	if !strings.Contains(text, want) {
		t.Errorf("no %s in:\n%s", want, text)
	}
}

// TestExporterRatesAreCounters: no rate is served as a gauge (a gauge of
// "per second" hides what happened between scrapes; a counter and rate()
// do not): every series the exporter can serve is described, and none
// that is a gauge is named as a rate.
func TestExporterRatesAreCounters(t *testing.T) {
	ch := make(chan *prometheus.Desc, 64)
	New("x").Describe(ch)
	close(ch)
	for d := range ch {
		name := regexp.MustCompile(`fqName: "([^"]+)"`).FindStringSubmatch(d.String())[1]
		if strings.Contains(name, "per_second") || strings.HasSuffix(name, "_rate") {
			t.Errorf("%s is a rate: serve a counter (_total) and let rate() make it one", name)
		}
	}
}
