package promread

import (
	"context"
	"fmt"
	"strconv"
	"time"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/fleet"
)

// The fleet's recording rules (deploy/prometheus/tablefull-fleet.rules.yml,
// written from the totals' and the ranking's queries): the engine
// evaluates the totals and the ranking over the whole fleet once an
// interval, and a refresh reads their few series instead of reading
// every host's. A refresh's time then does not grow with the fleet;
// without the rules it still works, from the queries the rules record.
const (
	// TotalsRecord is the recorded totals: the totals' series, tagged.
	TotalsRecord = "tablefull:fleet_totals:count"
	// RankRecord is the recorded ranking: the RecordedDepth instances
	// of highest fleet.Score, each at its highest term.
	RankRecord = "tablefull:fleet_rank:topk"
	// RecordedDepth is how deep the recorded ranking goes: the pages an
	// operator goes down in an incident. A page deeper reads the raw
	// queries; and a refresh reads as many recorded series at a fleet of
	// a thousand hosts as at one of a hundred thousand.
	RecordedDepth = 1000
	// RecordedWindow is the window the recorded totals read the hosts'
	// last samples over: the console's default --since. A console
	// asked for another window reads the raw queries.
	RecordedWindow = time.Hour
	// RecordedEvery is the rules' evaluation interval.
	RecordedEvery = 30 * time.Second
	// RecordedFreshFor is how old the newest evaluation may be for a
	// refresh to read it: a few intervals, as a busy engine evaluates
	// a large fleet's rules late.
	RecordedFreshFor = 4 * RecordedEvery
)

// What a refresh that may read the recordings sends.
const (
	// RecordedProbe is the query that reads the recorded totals: a
	// refresh that finds them missing or stale sends FleetQueries after
	// it.
	RecordedProbe = 1
	// RecordedQueries is how many queries a refresh read from the
	// recordings sends: the totals, the ranking, then the page's five.
	RecordedQueries = RecordedProbe + 1 + 5
	// RecordedRecheck is how long after a miss the refreshes send no
	// probe: the raw queries alone.
	RecordedRecheck = 5 * time.Minute
)

// newest is a recorded series' samples of its newest evaluation alone:
// a series an evaluation no longer wrote (a kind no host has now, a
// host out of the ranking) is left out, whether or not the engine marked
// it stale.
func newest(record string) string {
	return "(" + record + " and timestamp(" + record + ") >= scalar(max(timestamp(" + record + "))))"
}

// recordedTotals is the recorded totals and, tagged "evaluated", the
// time of their newest evaluation.
func recordedTotals() string {
	return newest(TotalsRecord) + ` or label_replace(max(timestamp(` + TotalsRecord + `)), "m", "evaluated", "", "")`
}

// recordedRank is the n highest of the recorded ranking's evaluation
// made since: its series with a sample in the window back to it. An
// earlier evaluation's hosts that left the ranking are not read at all:
// an engine that marks no series stale (VictoriaMetrics) would read
// every host that was ever in it within its lookback, a number that
// grows with the fleet where the ranking's tail ties.
func recordedRank(n int, since time.Duration) string {
	w := max(since+time.Second, time.Second).Milliseconds()
	return "sort_desc(topk(" + strconv.Itoa(n) + ", last_over_time(" + RankRecord + "[" + strconv.FormatInt(w, 10) + "ms])))"
}

// recordable reports whether a refresh of q's page v at now may read the
// recordings: they are of every instance, of RecordedWindow and
// RecordedDepth deep, and none were missed within RecordedRecheck.
func (r *Reader) recordable(q fleetQueries, v fleet.View, now time.Time) bool {
	if q.s != "" || r.window != RecordedWindow || v.Offset+v.Limit > RecordedDepth {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unrecorded.IsZero() || now.Sub(r.unrecorded) >= RecordedRecheck || now.Before(r.unrecorded)
}

// missedRecordings notes that the engine held no fresh recordings at now.
func (r *Reader) missedRecordings(now time.Time) {
	r.mu.Lock()
	r.unrecorded = now
	r.mu.Unlock()
}

// fromRecordings is the page read from the recordings, or ok false when
// the engine holds none fresh at now (no rules, or evaluated over
// RecordedFreshFor ago): the refresh then sends the raw queries.
func (r *Reader) fromRecordings(ctx context.Context, m *meter, now time.Time, q fleetQueries, v fleet.View) (page fleet.Page, ok bool, err error) {
	n := v.Offset + v.Limit
	// the totals first: their evaluation's time bounds the ranking's read
	counts, err := r.instant(withAnswerBound(ctx, MaxCountAnswerBytes), m, recordedTotals(), now)
	if err != nil {
		return fleet.Page{}, false, err
	}
	at, totals := evaluatedAt(counts), readTotals(counts)
	if at.IsZero() || now.Sub(at) > RecordedFreshFor || totals.Hosts == 0 {
		r.missedRecordings(now)
		return fleet.Page{}, false, nil
	}
	ranked, err := r.instant(ctx, m, recordedRank(n, now.Sub(at)), now)
	switch {
	case err != nil:
		return fleet.Page{}, false, err
	case len(ranked) == 0:
		r.missedRecordings(now)
		return fleet.Page{}, false, nil
	case len(ranked) > n:
		return fleet.Page{}, false, fmt.Errorf("%w: more instances than topk(%d) answered it", ErrAnswerTooBig, n)
	}
	rows, err := r.pageRows(ctx, m, now, q, onPage(ranked, v))
	if err != nil {
		return fleet.Page{}, false, err
	}
	return fleet.Page{Totals: totals, Offset: v.Offset, Rows: rows, Recorded: at}, true, nil
}

// evaluatedAt is the time of the recordings' newest evaluation in the
// totals' answer (zero: none, or not a time).
func evaluatedAt(v pmodel.Vector) time.Time {
	for _, s := range v {
		if s.Metric["m"] == "evaluated" && known(s.Value) && s.Value > 0 {
			return time.UnixMilli(int64(float64(s.Value) * 1000))
		}
	}
	return time.Time{}
}
