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

// TestPageDetailsBesideTheTotals: the page's details are asked as soon as
// the ranking answers, beside the totals still counting: with an engine
// whose counts take as long as the details, a refresh takes about one of
// them, not both (where a fleet's counts are most of the engine's work).
func TestPageDetailsBesideTheTotals(t *testing.T) {
	const slow = 400 * time.Millisecond
	ranked := []string{"h0:9874", "h1:9874"}
	engine := fakeEngine(t, len(ranked), ranked, vectorOf(2, "1"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if !strings.HasPrefix(r.Form.Get("query"), "sort_desc(topk(") { // the counts and the details
			time.Sleep(slow)
		}
		engine.ServeHTTP(w, r)
	}))
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	start := time.Now()
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{Limit: 2})
	took := time.Since(start)
	if err != nil || page.Totals.Hosts != 2 || len(page.Rows) != 2 {
		t.Fatalf("totals %+v, %d rows, %v", page.Totals, len(page.Rows), err)
	}
	if took >= 2*slow {
		t.Errorf("a refresh took %s: the details waited for the counts (%s each)", took.Round(time.Millisecond), slow)
	}
}
