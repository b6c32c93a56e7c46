package promread

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/remote/metrics"
	"github.com/tablefull/tablefull/remote/stream"
)

// StaleAfter is how long an instance may go unscraped before its row
// says STALE (a full table may be dropping the scrape itself).
const StaleAfter = time.Minute

// Fleet is one refresh of the fleet view: the totals of every instance
// in scope and one page of the ranking, from a fixed number of queries
// whatever the fleet's size (FleetQueries), each answer bounded by the
// page: the engine counts and ranks, the console reads the page.
func (r *Reader) Fleet(ctx context.Context, now time.Time, v fleet.View) (fleet.Page, error) {
	start, m := time.Now(), new(meter) // this refresh's own: refreshes may overlap
	narrow, err := Narrowing(v.Narrow)
	if err != nil {
		return fleet.Page{}, err
	}
	if v.Limit <= 0 {
		v.Limit = DefaultPage
	}
	v.Offset = max(v.Offset, 0)
	if v.Offset+v.Limit > MaxFleetInstances {
		return fleet.Page{}, fmt.Errorf("%w: a page beyond the first %d of the ranking: narrow with / or --selector", ErrAnswerTooBig, MaxFleetInstances)
	}
	q := fleetQueries{s: scope(joinMatchers(narrow, r.sel)), w: pmodel.Duration(r.window).String()}
	if r.recordable(q, v, now) {
		page, ok, err := r.fromRecordings(ctx, m, now, q, v)
		if err != nil {
			return fleet.Page{}, err
		}
		if ok {
			page.Cost = m.cost(start)
			return page, nil
		}
	}
	// the totals and the ranking side by side: the engine's work on
	// the whole fleet is most of a refresh; the page's details go as
	// soon as the ranking answers, beside the totals still counting
	var (
		counts    []pmodel.Vector
		countsErr error
		counted   = make(chan struct{})
	)
	go func() {
		defer close(counted)
		counts, countsErr = r.instants(ctx, m, now, counting(q.totals()...)...)
	}()
	var rows []fleet.Row
	parts, err := r.instants(ctx, m, now, listing(q.rank(v.Offset+v.Limit)...)...)
	ranked, tooMany := mergeRanked(parts, v.Offset+v.Limit)
	if err == nil && !tooMany {
		rows, err = r.pageRows(ctx, m, now, q, onPage(ranked, v))
	}
	<-counted
	if countsErr != nil {
		return fleet.Page{}, countsErr
	}
	page := fleet.Page{Totals: readTotals(slices.Concat(counts...)), Offset: v.Offset, Rows: rows}
	switch {
	case page.Totals.Hosts == 0:
		return fleet.Page{}, fmt.Errorf("%w: no instance with tablefull's metrics matches %s at %s", ErrNoInstances, q.s.with(""), r.where)
	case err != nil:
		return fleet.Page{}, err
	case tooMany:
		return fleet.Page{}, fmt.Errorf("%w: more instances than topk(%d) answered it", ErrAnswerTooBig, v.Offset+v.Limit)
	}
	page.Cost = m.cost(start)
	return page, nil
}

// cost is what the refresh begun at start has asked so far.
func (m *meter) cost(start time.Time) fleet.Cost {
	return fleet.Cost{Queries: int(m.queries.Load()), Bytes: m.bytes.Load(), Took: time.Since(start), Own: time.Duration(m.own.Load())}
}

// sized is a query and the bound on its answer.
type sized struct {
	expr string
	max  int64
}

// counting is queries that count, each answer bounded to
// MaxCountAnswerBytes; listing is queries of a page's series, each to
// MaxAnswerBytes.
func counting(exprs ...string) []sized { return sizedAt(MaxCountAnswerBytes, exprs) }
func listing(exprs ...string) []sized  { return sizedAt(MaxAnswerBytes, exprs) }

func sizedAt(max int64, exprs []string) []sized {
	out := make([]sized, len(exprs))
	for i, e := range exprs {
		out[i] = sized{e, max}
	}
	return out
}

// instants runs instant queries side by side and returns their answers
// in order, or the first query's error.
func (r *Reader) instants(ctx context.Context, m *meter, now time.Time, queries ...sized) ([]pmodel.Vector, error) {
	vecs, errs := make([]pmodel.Vector, len(queries)), make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vecs[i], errs[i] = r.instant(withAnswerBound(ctx, q.max), m, q.expr, now)
		}()
	}
	wg.Wait()
	return vecs, errors.Join(errs...)
}

// FleetQueries is how many queries one refresh sends, whatever the
// fleet's size: the totals' five, the ranking's three and the page's
// five.
const FleetQueries = 13

// mergeRanked is the ranking's answers as one: each instance once, at
// the highest of its terms; tooMany says an answer held more instances
// than its topk(n) may.
func mergeRanked(parts []pmodel.Vector, n int) (ranked pmodel.Vector, tooMany bool) {
	at := map[pmodel.LabelValue]int{}
	for _, part := range parts {
		tooMany = tooMany || len(part) > n
		for _, s := range part {
			inst := s.Metric[pmodel.InstanceLabel]
			if i, ok := at[inst]; ok {
				if s.Value > ranked[i].Value || math.IsNaN(float64(ranked[i].Value)) {
					ranked[i] = s
				}
				continue
			}
			at[inst] = len(ranked)
			ranked = append(ranked, s)
		}
	}
	return ranked, tooMany
}

// MaxQueryBytes bounds one query's text: under VictoriaMetrics' default
// -search.maxQueryLen (16 KiB), which refuses a longer one. A page whose
// hosts' names would take its details past it is shortened.
const MaxQueryBytes = 15 << 10

// longest is the length of the longest query.
func longest(queries []string) int {
	n := 0
	for _, q := range queries {
		n = max(n, len(q))
	}
	return n
}

// DefaultPage is the rows a page has when the view does not say.
const DefaultPage = 50

// onPage is the instances of the ranking's answer on the view's page,
// in the fleet's order (score, then instance).
func onPage(ranked pmodel.Vector, v fleet.View) []string {
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].Value != ranked[j].Value {
			return ranked[i].Value > ranked[j].Value
		}
		return ranked[i].Metric[pmodel.InstanceLabel] < ranked[j].Metric[pmodel.InstanceLabel]
	})
	var out []string
	for i := v.Offset; i < len(ranked) && i < v.Offset+v.Limit; i++ {
		out = append(out, string(ranked[i].Metric[pmodel.InstanceLabel]))
	}
	return out
}

// pageRows reads the rows of the instances on a page with the details'
// five queries, narrowed to them, side by side.
func (r *Reader) pageRows(ctx context.Context, m *meter, now time.Time, q fleetQueries, instances []string) ([]fleet.Row, error) {
	if len(instances) == 0 {
		return nil, nil
	}
	for len(instances) > 1 && longest(q.onPage(instances).details()) > MaxQueryBytes {
		instances = instances[:len(instances)-1] // a shorter page, not a refused query
	}
	vecs, err := r.instants(ctx, m, now, listing(q.onPage(instances).details()...)...)
	if err != nil {
		return nil, err
	}
	built := m.ownStart()
	f := fleetRows{rows: map[string]*fleet.Row{}}
	for _, in := range instances { // a ranked instance keeps its row if a detail misses it
		f.rows[bound(in)] = &fleet.Row{Instance: bound(in)}
	}
	f.each(vecs[4], func(rw *fleet.Row, _ *pmodel.Sample, v float64) {
		rw.LastSeen = time.UnixMilli(int64(v * 1000))
		rw.Stale = now.Sub(rw.LastSeen) > StaleAfter
	})
	f.each(vecs[0], tableOf)
	f.each(vecs[1], func(rw *fleet.Row, _ *pmodel.Sample, v float64) { rw.Peak = uint64(v) })
	f.each(vecs[2], func(rw *fleet.Row, s *pmodel.Sample, v float64) {
		if s.Metric["m"] == "ns" {
			rw.NSDropsPS = v
		} else {
			rw.DropsPS = v
		}
	})
	f.each(vecs[3], historyOf)
	out := make([]fleet.Row, 0, len(f.rows))
	for _, rw := range f.rows {
		diagnose.SortKinds(rw.Kinds)
		rw.Peak = max(rw.Peak, rw.Count)
		out = append(out, *rw)
	}
	fleet.Sort(out)
	m.ownEnd(built)
	if r.am != nil {
		note := ""
		if err := r.am.mark(ctx, out); err != nil { // the alerts still list as firing
			note = err.Error()
		}
		r.mu.Lock()
		r.amNote = note
		r.mu.Unlock()
	}
	return out, nil
}

// fleetRows are the rows of a page by instance: an answer's series of
// an instance not on the page are left out.
type fleetRows struct {
	rows map[string]*fleet.Row
}

// each hands every sample of v to set with its instance's row. A value
// out of range (NaN, ±Inf, negative, beyond 2^53) is unknown: left out,
// never a garbled number.
func (f *fleetRows) each(v pmodel.Vector, set func(rw *fleet.Row, s *pmodel.Sample, v float64)) {
	for _, s := range v {
		rw := f.rows[bound(string(s.Metric[pmodel.InstanceLabel]))]
		if rw != nil && known(s.Value) {
			set(rw, s, float64(s.Value))
		}
	}
}

// tableOf reads the table's count, cap and verdicts into a row.
func tableOf(rw *fleet.Row, s *pmodel.Sample, v float64) {
	if rw.Labels == "" {
		rw.Labels = bound(otherLabels(s.Metric))
	}
	switch string(s.Metric[pmodel.MetricNameLabel]) {
	case metrics.Entries.Name:
		rw.Count, rw.HasTable = uint64(v), true
	case metrics.Limit.Name:
		rw.Limit = uint64(v)
	case metrics.Verdict.Name:
		if k, ok := diagnose.KindOfLabel(string(s.Metric["kind"])); ok && v == 1 {
			rw.Kinds = append(rw.Kinds, k)
		}
	}
}

// historyOf reads the window's pinned time, episodes, fullest other
// namespace and firing alerts into a row.
func historyOf(rw *fleet.Row, s *pmodel.Sample, v float64) {
	switch s.Metric["m"] {
	case "pinned":
		rw.Pinned = time.Duration(v * float64(time.Second)).Round(time.Second)
	case "worstns":
		rw.WorstNS, rw.WorstNSCount = bound(string(s.Metric["kind"])+" "+string(s.Metric["netns"])), uint64(v)
	case "alert":
		rw.AddAlert(fleet.Alert{Name: bound(string(s.Metric["alertname"])), Severity: bound(string(s.Metric["severity"]))})
	default:
		rw.Episodes = uint64(math.Round(v))
	}
}

// ErrNoInstances reports a selector that matches no exporter.
var ErrNoInstances = fmt.Errorf("no instances")

// otherLabels are a series' labels but its name, instance and kind, as
// "env=prod job=tablefull".
func otherLabels(m pmodel.Metric) string {
	var parts []string
	for k, v := range m {
		if k != pmodel.MetricNameLabel && k != pmodel.InstanceLabel && k != "kind" {
			parts = append(parts, string(k)+"="+string(v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// bound cuts a label text to stream.MaxString bytes, as a stream's
// strings are: a row's memory does not grow with what a label says.
func bound(s string) string {
	if len(s) <= stream.MaxString {
		return s
	}
	return strings.Clone(strings.ToValidUTF8(s[:stream.MaxString], ""))
}
