package promread

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/fleet"
)

// alertsPrometheus answers the fleet's queries: a row for each of two
// instances, and Prometheus's ALERTS firing for them (in the query that
// also holds the fullest namespaces).
func alertsPrometheus(t *testing.T) *httptest.Server {
	return httptest.NewServer(fakeEngine(t, 2, []string{"node-1:9874", "node-2:9874"}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		r.ParseForm()
		if q := r.Form.Get("query"); strings.Contains(q, "ALERTS") {
			if !strings.Contains(q, `alertstate="firing"`) {
				t.Errorf("the alerts' query asks for more than the firing ones: %s", q)
			}
			w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[` +
				`{"metric":{"__name__":"ALERTS","m":"alert","alertname":"ConntrackNearCap","alertstate":"firing","severity":"warning","instance":"node-1:9874"},"value":[1,"1"]},` +
				`{"metric":{"__name__":"ALERTS","m":"alert","alertname":"ConntrackTableFull","alertstate":"firing","severity":"critical","instance":"node-1:9874"},"value":[1,"1"]},` +
				`{"metric":{"__name__":"ALERTS","m":"alert","alertname":"ConntrackNearCap","alertstate":"firing","severity":"warning","instance":"node-2:9874"},"value":[1,"1"]}]}}`))
			return
		}
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[` +
			`{"metric":{"__name__":"tablefull_conntrack_entries_limit","instance":"node-1:9874"},"value":[1,"300"]},` +
			`{"metric":{"__name__":"tablefull_conntrack_entries_limit","instance":"node-2:9874"},"value":[1,"300"]}]}}`))
	})))
}

// TestFleetListsFiringAlerts: the alerts Prometheus fires reach their
// instances' rows, most severe first, in the fleet's own queries (no
// query more a refresh); with an Alertmanager, each is marked as it
// holds it (node-2's NEAR CAP inhibited, node-1's silenced one), and an
// Alertmanager that fails leaves them firing, unknown, with its reason.
func TestFleetListsFiringAlerts(t *testing.T) {
	prom := alertsPrometheus(t)
	defer prom.Close()
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v2/alerts" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`[{"labels":{"alertname":"ConntrackNearCap","instance":"node-2:9874"},"status":{"state":"suppressed","inhibitedBy":["abc"],"silencedBy":[]}},` +
			`{"labels":{"alertname":"ConntrackNearCap","instance":"node-1:9874"},"status":{"state":"suppressed","inhibitedBy":[],"silencedBy":["s1"]}},` +
			`{"labels":{"alertname":"ConntrackTableFull","instance":"node-1:9874"},"status":{"state":"active","inhibitedBy":[],"silencedBy":[]}}]`))
	}))
	defer am.Close()
	r, err := New(Config{URL: prom.URL, Alertmanager: am.URL})
	if err != nil {
		t.Fatal(err)
	}
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{})
	if err != nil {
		t.Fatal(err)
	}
	rows := page.Rows
	if page.Cost.Queries != FleetQueries+RecordedProbe { // the first refresh looks for recordings first
		t.Errorf("%d queries a refresh, want the fleet's %d and the probe's %d", page.Cost.Queries, FleetQueries, RecordedProbe)
	}
	got := map[string][]fleet.Alert{}
	for _, rw := range rows {
		got[rw.Instance] = rw.Alerts
	}
	want := map[string][]fleet.Alert{
		"node-1:9874": {{Name: "ConntrackTableFull", Severity: "critical", Known: true}, {Name: "ConntrackNearCap", Severity: "warning", Known: true, Silenced: true}},
		"node-2:9874": {{Name: "ConntrackNearCap", Severity: "warning", Known: true, Inhibited: true}},
	}
	for inst, w := range want {
		if len(got[inst]) != len(w) {
			t.Errorf("%s: alerts %+v, want %+v", inst, got[inst], w)
			continue
		}
		for i := range w {
			if got[inst][i] != w[i] {
				t.Errorf("%s: alert %d %+v, want %+v", inst, i, got[inst][i], w[i])
			}
		}
	}
	if r.AlertmanagerNote() != "" {
		t.Errorf("a note with Alertmanager read: %s", r.AlertmanagerNote())
	}

	am.Close() // gone: the alerts stay firing, unknown, and the reason is said
	if page, err = r.Fleet(context.Background(), time.Now(), fleet.View{}); err != nil {
		t.Fatal(err)
	}
	for _, rw := range page.Rows {
		for _, a := range rw.Alerts {
			if a.Known || !a.Paged() {
				t.Errorf("%s %s: known %v, paged %v with Alertmanager gone", rw.Instance, a.Name, a.Known, a.Paged())
			}
		}
	}
	if !strings.Contains(r.AlertmanagerNote(), "alertmanager") {
		t.Errorf("Alertmanager gone, the note says %q", r.AlertmanagerNote())
	}
}
