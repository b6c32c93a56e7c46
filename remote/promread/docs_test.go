package promread

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/fleet"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/fleet.md's queries from the reader's")

// TestQueriesInTheDocs: docs/fleet.md lists the queries one refresh
// sends, as the reader writes them: the raw queries, and the two that
// read the recordings.
func TestQueriesInTheDocs(t *testing.T) {
	const path = "../../docs/fleet.md"
	q := fleetQueries{s: scope(`job="tablefull"`), w: pmodel.Duration(time.Hour).String()}
	for _, b := range []struct {
		marker string
		list   []string
	}{
		{"queries", append(append(q.totals(), q.rank(50)...), q.onPage([]string{"web-3:9874", "web-4:9874"}).details()...)},
		{"recorded", []string{recordedTotals(), recordedRank(50, 12*time.Second)}},
	} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		block := "\n```\n" + strings.Join(b.list, "\n\n") + "\n```\n"
		open, shut := strings.Index(string(doc), "<!-- "+b.marker+":"), strings.Index(string(doc), "<!-- /"+b.marker+" -->")
		if open < 0 || shut < open {
			t.Fatalf("%s has no %s block", path, b.marker)
		}
		head := open + strings.Index(string(doc[open:]), "-->") + len("-->")
		if got := string(doc[head:shut]); got != block {
			if *updateDocs {
				os.WriteFile(path, []byte(string(doc[:head])+block+string(doc[shut:])), 0o644)
				continue
			}
			t.Errorf("%s lists other %s queries than the reader sends (go test ./remote/promread -run TestQueriesInTheDocs -update-docs)", path, b.marker)
		}
	}
}

// TestQueriesFitVictoriaMetrics: every query of a refresh stays under
// VictoriaMetrics' default -search.maxQueryLen (16 KiB), for a long
// selector and narrowing and a page of 200 hosts with long names (a
// screen taller than any terminal's); the page's details grow with the
// page, never with the fleet.
func TestQueriesFitVictoriaMetrics(t *testing.T) {
	const maxQueryLen = 16 << 10
	sel := `job="tablefull",cluster=~"eu-west-1[abc]",role!="canary",env="production-fleet-number-one"`
	q := fleetQueries{s: scope(sel), w: pmodel.Duration(6 * time.Hour).String()}
	page := make([]string, 200)
	for i := range page {
		page[i] = fmt.Sprintf("ip-10-42-%03d-%03d.eu-west-1.compute.internal:9874", i/250, i%250)
	}
	for i, query := range append(q.totals(), q.rank(MaxFleetInstances)...) {
		if len(query) >= maxQueryLen {
			t.Errorf("query %d is %d bytes, over VictoriaMetrics' default %d", i, len(query), maxQueryLen)
		}
	}
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(fakeEngine(t, len(page), page, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		asked = append(asked, r.Form.Get("query"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	})))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL, Selector: sel})
	p, err := r.Fleet(context.Background(), time.Now(), fleet.View{Limit: len(page)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) == 0 || len(p.Rows) == len(page) {
		t.Errorf("a page of %d long names kept %d rows: want it shortened, not emptied", len(page), len(p.Rows))
	}
	for _, query := range asked {
		if len(query) >= maxQueryLen {
			t.Errorf("a detail query of %d bytes, over VictoriaMetrics' default %d", len(query), maxQueryLen)
		}
	}
}
