package promread

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/remote/metrics"
)

// recordingEngine is a fake engine whose fleet rules were last evaluated
// at *evaluated (zero: it has none): 100,000 hosts, 3 pinned and
// dropping, ranked h0, h1, … It logs every query asked.
type recordingEngine struct {
	mu        sync.Mutex
	evaluated time.Time
	asked     []string
}

func (e *recordingEngine) at(t time.Time) { e.mu.Lock(); e.evaluated = t; e.mu.Unlock() }

// take returns the queries asked since the last take.
func (e *recordingEngine) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	q := e.asked
	e.asked = nil
	return q
}

func (e *recordingEngine) server(t *testing.T) *httptest.Server {
	ranked := make([]string, RecordedDepth+100)
	for i := range ranked {
		ranked[i] = fmt.Sprintf("h%d:9874", i)
	}
	raw := fakeEngine(t, 100000, ranked, vectorOf(60, "1"))
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		q := r.Form.Get("query")
		e.mu.Lock()
		e.asked = append(e.asked, q)
		at := e.evaluated
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		result := ""
		switch {
		case at.IsZero() && recordings(q):
		case q == recordedTotals():
			result = fmt.Sprintf(`{"metric":{"__name__":%q,"m":"hosts","stale":"0"},"value":[1,"100000"]},`+
				`{"metric":{"__name__":%[1]q,"m":"pinned"},"value":[1,"3"]},`+
				`{"metric":{"__name__":%[1]q,"m":"scored","dropping":"1"},"value":[1,"3"]},`+
				`{"metric":{"__name__":%[1]q,"m":"kind","kind":"table_full"},"value":[1,"3"]},`+
				`{"metric":{"m":"evaluated"},"value":[1,"%.3f"]}`, TotalsRecord, float64(at.UnixMilli())/1000)
		case strings.HasPrefix(q, "sort_desc(topk(") && strings.Contains(q, RankRecord):
			var k int
			fmt.Sscanf(q, "sort_desc(topk(%d,", &k)
			var parts []string
			for i := range min(k, len(ranked)) {
				parts = append(parts, fmt.Sprintf(`{"metric":{"instance":%q},"value":[1,"%d"]}`, ranked[i], len(ranked)-i))
			}
			result = strings.Join(parts, ",")
		default:
			raw.ServeHTTP(w, r)
			return
		}
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, result)
	}))
}

// readsEveryHost reports whether any query reads a series every host
// serves, which the recordings spare a refresh.
func readsEveryHost(queries []string) bool {
	for _, q := range queries {
		if strings.Contains(q, metrics.LastSample.Name+"{}") || strings.Contains(q, metrics.FleetScore.Name+"{}") || strings.Contains(q, metrics.VerdictWorst.Name+"{}") {
			return true
		}
	}
	return false
}

// TestFleetFromRecordings: with the fleet's rules evaluated lately, a
// refresh reads their totals and ranking and the page's details, and no
// query reads every host; with no rules, or rules last evaluated over
// RecordedFreshFor ago, it reads the raw queries and looks for the
// recordings again only after RecordedRecheck; a selector, a narrowing,
// another window or a page deeper than they rank never reads them.
func TestFleetFromRecordings(t *testing.T) {
	e := &recordingEngine{}
	srv := e.server(t)
	defer srv.Close()
	now := time.Now()
	e.at(now.Add(-20 * time.Second))
	r, _ := New(Config{URL: srv.URL})
	page, err := r.Fleet(context.Background(), now, fleet.View{Limit: 20})
	asked := e.take()
	if err != nil || page.Recorded.IsZero() || page.Totals.Hosts != 100000 || page.Totals.Pinned != 3 || page.Totals.Dropping != 3 || len(page.Rows) != 20 || page.Rows[0].Instance != "h0:9874" {
		t.Fatalf("from fresh recordings: %+v, %d rows, %v", page.Totals, len(page.Rows), err)
	}
	if page.Cost.Queries != RecordedQueries || readsEveryHost(asked) {
		t.Errorf("from fresh recordings: %d queries, want %d none of which reads every host:\n%s", page.Cost.Queries, RecordedQueries, strings.Join(asked, "\n"))
	}
	// the ranking is read back to its evaluation 20 s ago, not over the
	// engine's lookback, where earlier evaluations' hosts linger
	if !strings.Contains(strings.Join(asked, "\n"), "last_over_time("+RankRecord+"[21000ms])") {
		t.Errorf("the ranking was not read over the 21 s back to its evaluation:\n%s", strings.Join(asked, "\n"))
	}

	e.at(now.Add(-RecordedFreshFor - time.Second)) // the ruler stopped
	page, err = r.Fleet(context.Background(), now, fleet.View{Limit: 20})
	if err != nil || !page.Recorded.IsZero() || page.Totals.Hosts != 100000 || page.Cost.Queries != RecordedProbe+FleetQueries || !readsEveryHost(e.take()) {
		t.Fatalf("from recordings too old: recorded %s, %+v, %d queries, %v; want the raw queries after the probe", page.Recorded, page.Totals, page.Cost.Queries, err)
	}
	for _, c := range []struct { // evaluated again: seen at the next look
		after    time.Duration
		queries  int
		recorded bool
	}{{time.Minute, FleetQueries, false}, {RecordedRecheck, RecordedQueries, true}} {
		e.at(now.Add(c.after - 10*time.Second))
		page, err = r.Fleet(context.Background(), now.Add(c.after), fleet.View{Limit: 20})
		if err != nil || page.Cost.Queries != c.queries || page.Recorded.IsZero() == c.recorded {
			t.Errorf("%s after the miss: %d queries, recorded %s, %v; want %d, recorded %v", c.after, page.Cost.Queries, page.Recorded, err, c.queries, c.recorded)
		}
	}
	e.take()

	for _, c := range []struct {
		cfg  Config
		view fleet.View
	}{
		{Config{URL: srv.URL, Selector: `job="tablefull"`}, fleet.View{Limit: 20}},
		{Config{URL: srv.URL}, fleet.View{Limit: 20, Narrow: `cluster="c07"`}},
		{Config{URL: srv.URL, Window: 30 * time.Minute}, fleet.View{Limit: 20}},
		{Config{URL: srv.URL}, fleet.View{Offset: RecordedDepth - 10, Limit: 20}},
	} {
		r, _ := New(c.cfg)
		page, err := r.Fleet(context.Background(), now, c.view)
		for _, q := range e.take() {
			if recordings(q) {
				t.Errorf("%+v, view %+v: asked the recordings, which are of every instance over %s: %s", c.cfg, c.view, RecordedWindow, q)
			}
		}
		if err != nil || !page.Recorded.IsZero() || page.Cost.Queries != FleetQueries {
			t.Errorf("%+v, view %+v: %d queries, recorded %s, %v", c.cfg, c.view, page.Cost.Queries, page.Recorded, err)
		}
	}
}
