package exporter

import (
	"context"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	fleetmodel "github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/remote/promread"
)

// checkRecordedAnswers waits for the engine's first evaluation of the
// fleet's recording rules (deploy/prometheus/tablefull-fleet.rules.yml),
// then asks as the console does with no selector and the default window:
// each refresh reads the recordings, its totals and its ranking are the
// fleet's as the raw queries' are.
func checkRecordedAnswers(t *testing.T, url string, f clitest.SyntheticFleet) {
	t.Helper()
	ask := func(r *promread.Reader, v fleetmodel.View) (fleetmodel.Page, error) {
		return r.Fleet(context.Background(), time.Now(), v)
	}
	start := time.Now()
	for {
		// a new reader each time: one remembers a miss for minutes
		r, err := promread.New(promread.Config{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		p, err := ask(r, fleetmodel.View{Limit: 50})
		if err == nil && !p.Recorded.IsZero() {
			t.Logf("%d hosts: the rules' first evaluation read %s after the import", f.N, time.Since(start).Round(time.Second))
			break
		}
		if time.Since(start) > 3*time.Minute {
			t.Fatalf("%d hosts: no fresh recordings of the fleet's rules within 3 minutes (%v)", f.N, err)
		}
		time.Sleep(2 * time.Second)
	}
	r, _ := promread.New(promread.Config{URL: url})
	for _, v := range []fleetmodel.View{{Limit: 50}, {Offset: max(0, f.Count(clitest.PinnedHost)-3), Limit: 30}} {
		p := askRecorded(t, r, f, v)
		checkTotals(t, f, p.Totals)
		checkPage(t, f, p, ranking(f))
	}
}

// askRecorded is one refresh of page v that read the recordings.
func askRecorded(t *testing.T, r *promread.Reader, f clitest.SyntheticFleet, v fleetmodel.View) fleetmodel.Page {
	t.Helper()
	p, err := r.Fleet(context.Background(), time.Now(), v)
	if err != nil || p.Recorded.IsZero() || p.Cost.Queries != promread.RecordedQueries {
		t.Fatalf("%d hosts, view %+v: recorded %s, %d queries, %v; want the recordings read in %d", f.N, v, p.Recorded, p.Cost.Queries, err, promread.RecordedQueries)
	}
	t.Logf("%d hosts, view %+v, from the recordings of %s before: %d queries, %d bytes answered, in %s",
		f.N, v, time.Since(p.Recorded).Round(time.Second), p.Cost.Queries, p.Cost.Bytes, p.Cost.Took.Round(time.Millisecond))
	return p
}

// recordedCost is the median cost of refreshes read from the
// recordings: fifteen, spread over a few seconds as a console's are
// spread (a refresh at once after another is answered from the
// engine's caches), as many as make a median of some 20 ms steady.
func recordedCost(t *testing.T, url string, f clitest.SyntheticFleet) consoleCost {
	t.Helper()
	r, _ := promread.New(promread.Config{URL: url})
	var costs []fleetmodel.Cost
	for range 15 {
		costs = append(costs, askRecorded(t, r, f, fleetmodel.View{Limit: 50}).Cost)
		time.Sleep(300 * time.Millisecond)
	}
	return medianCost(costs)
}
