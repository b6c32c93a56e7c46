package promread

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	pmodel "github.com/prometheus/common/model"
)

// TestAPIClient: the form Prometheus's API takes, its answers decoded by
// type, its errors said as it says them.
func TestAPIClient(t *testing.T) {
	var got url.Values
	answer := ""
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, _ = url.ParseQuery(string(b))
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("%s %s", r.Method, r.Header.Get("Content-Type"))
		}
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/prom")
	c := apiClient{base: u, hc: srv.Client()}
	at := time.Unix(1800000000, 500_000_000)

	answer = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"instance":"a"},"value":[1800000000.5,"7"]}]}}`
	v, err := c.query(context.Background(), `up{job="t"}`, at)
	if vec, ok := v.(pmodel.Vector); err != nil || !ok || len(vec) != 1 || vec[0].Value != 7 || vec[0].Metric["instance"] != "a" {
		t.Errorf("vector: %v %v", v, err)
	}
	if got.Get("query") != `up{job="t"}` || got.Get("time") != "1800000000.500" {
		t.Errorf("form %v", got)
	}
	answer = `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1800000000,"1"],[1800000015,"2"]]}]}}`
	v, err = c.queryRange(context.Background(), "x", queryRange{Start: at, End: at.Add(time.Minute), Step: 15 * time.Second})
	if m, ok := v.(pmodel.Matrix); err != nil || !ok || len(m) != 1 || len(m[0].Values) != 2 {
		t.Errorf("matrix: %v %v", v, err)
	}
	if got.Get("step") != "15" || got.Get("end") != "1800000060.500" {
		t.Errorf("form %v", got)
	}
	status, answer = http.StatusBadRequest, `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`
	if _, err := c.query(context.Background(), "x{", at); err == nil || err.Error() != "bad_data: parse error at char 3" {
		t.Errorf("an API error: %v", err)
	}
	status, answer = http.StatusBadGateway, "<html>bad gateway</html>"
	if _, err := c.query(context.Background(), "x", at); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("a proxy's page: %v", err)
	}
	status, answer = http.StatusOK, `{"status":"success","data":{"resultType":"hologram","result":[]}}`
	if _, err := c.query(context.Background(), "x", at); err == nil || !strings.Contains(err.Error(), "hologram") {
		t.Errorf("an unknown type: %v", err)
	}
}
