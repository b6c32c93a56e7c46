package promread

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/fleet"
)

// TestPageDetailsBesideTheTotals: the page's details are asked as soon as
// the ranking answers, beside the totals still counting: with an engine
// whose counts take as long as the details, a refresh takes about one of
// them, not both (where a fleet's counts are most of the engine's work).
func TestPageDetailsBesideTheTotals(t *testing.T) {
	const slow = 400 * time.Millisecond
	srv := slowedEngine(t, slow, func(q string) bool { return !strings.HasPrefix(q, "sort_desc(topk(") && !recordings(q) }) // the counts and the details
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

// TestRankingPartsBesideEachOther: the ranking's three queries (the
// served scores, the verdicts of exporters serving none, the stale) go
// side by side, each reading the whole fleet: with an engine that takes
// as long over each, the ranking takes about one of them, not three.
func TestRankingPartsBesideEachOther(t *testing.T) {
	const slow = 300 * time.Millisecond
	var parts atomic.Int32
	srv := slowedEngine(t, slow, func(q string) bool {
		ranking := strings.HasPrefix(q, "sort_desc(topk(") && !recordings(q)
		if ranking {
			parts.Add(1)
		}
		return ranking
	})
	defer srv.Close()
	r, _ := New(Config{URL: srv.URL})
	start := time.Now()
	page, err := r.Fleet(context.Background(), time.Now(), fleet.View{Limit: 2})
	took := time.Since(start)
	if err != nil || len(page.Rows) != 2 {
		t.Fatalf("%d rows, %v", len(page.Rows), err)
	}
	if parts.Load() != 3 || took >= 2*slow {
		t.Errorf("the ranking was %d queries and took %s (%s each): want three side by side", parts.Load(), took.Round(time.Millisecond), slow)
	}
}

// TestMergeRanked: the ranking's answers become one, each instance once
// at the highest of its terms (a stale host whose last score was
// critical ranks by that score; one serving no score by its verdict),
// and an answer over its topk is said.
func TestMergeRanked(t *testing.T) {
	at := func(inst string, v float64) *pmodel.Sample {
		return &pmodel.Sample{Metric: pmodel.Metric{pmodel.InstanceLabel: pmodel.LabelValue(inst)}, Value: pmodel.SampleValue(v)}
	}
	served := pmodel.Vector{at("critical-then-stale", 9), at("quiet", 1)}
	byVerdict := pmodel.Vector{at("unscored", 7)}
	stale := pmodel.Vector{at("critical-then-stale", 5), at("stale", 5)}
	got, tooMany := mergeRanked([]pmodel.Vector{served, byVerdict, stale}, 3)
	want := map[string]float64{"critical-then-stale": 9, "quiet": 1, "unscored": 7, "stale": 5}
	if tooMany || len(got) != len(want) {
		t.Fatalf("merged %v (too many: %v), want %v", got, tooMany, want)
	}
	for _, s := range got {
		if inst := string(s.Metric[pmodel.InstanceLabel]); float64(s.Value) != want[inst] {
			t.Errorf("%s at %v, want %v", inst, s.Value, want[inst])
		}
	}
	if _, tooMany := mergeRanked([]pmodel.Vector{served, byVerdict, stale}, 1); !tooMany {
		t.Error("answers of two instances to a topk(1) are not said to be too many")
	}
}

// recordings reports whether q reads the fleet's recording rules, which
// the slowed engine has none of: it answers at once.
func recordings(q string) bool {
	return strings.Contains(q, TotalsRecord) || strings.Contains(q, RankRecord)
}

// slowedEngine is a fake engine of two ranked hosts that takes slow over
// each query slowed says.
func slowedEngine(t *testing.T, slow time.Duration, slowed func(query string) bool) *httptest.Server {
	ranked := []string{"h0:9874", "h1:9874"}
	engine := fakeEngine(t, len(ranked), ranked, vectorOf(2, "1"))
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if slowed(r.Form.Get("query")) {
			time.Sleep(slow)
		}
		engine.ServeHTTP(w, r)
	}))
}
