package promread

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
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

// Fleet is every instance's row, sorted most severe first, from five
// instant queries over the whole fleet (never one per host).
func (r *Reader) Fleet(ctx context.Context, now time.Time) ([]fleet.Row, error) {
	w := pmodel.Duration(r.window).String()
	queries := []string{
		r.with(`__name__=~"` + metrics.AnyOf(metrics.Entries.Name, metrics.Limit.Name, metrics.Verdict.Name) + `"`),
		"max by (instance) (max_over_time(" + metrics.Peak.Name + r.with("") + "[" + w + "]))",
		"sum by (instance) (rate(" + metrics.Events.Name + r.with(`counter=~"drop|early_drop"`) + "[2m])) or " +
			`label_replace(sum by (instance) (rate(` + metrics.NSDrops.Name + r.with("") + `[2m])), "m", "ns", "", "")`,
		`label_replace(sum by (instance) (increase(` + metrics.Pinned.Name + r.with("") + "[" + w + `])), "m", "pinned", "", "") or ` +
			`label_replace(sum by (instance) (increase(` + metrics.Episodes.Name + r.with("") + "[" + w + `])), "m", "episodes", "", "") or ` +
			// the fullest other namespace of each host and the alerts firing
			// for it, in the same query: a refresh stays at five
			`label_replace(topk by (instance) (1, ` + metrics.NSEntries.Name + r.with("") + `), "m", "worstns", "", "") or ` +
			`label_replace(ALERTS` + r.with(`alertstate="firing"`) + `, "m", "alert", "", "")`,
		"max by (instance) (last_over_time(" + metrics.LastSample.Name + r.with("") + "[" + w + "]))",
	}
	var vecs [5]pmodel.Vector
	for i, q := range queries {
		v, err := r.instant(ctx, q, now)
		if err != nil {
			return nil, err
		}
		vecs[i] = v
	}
	f := fleetRows{rows: map[string]*fleet.Row{}}
	f.each(vecs[4], func(rw *fleet.Row, _ *pmodel.Sample, v float64) { // the instances seen in the window, answering or not
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
	if f.over > 0 { // refused, not cut: a fleet view missing hosts would read as a calm fleet
		return nil, fmt.Errorf("%w: more than %d instances: narrow --selector", ErrAnswerTooBig, MaxFleetInstances)
	}
	out := make([]fleet.Row, 0, len(f.rows))
	for _, rw := range f.rows {
		diagnose.SortKinds(rw.Kinds)
		rw.Peak = max(rw.Peak, rw.Count)
		out = append(out, *rw)
	}
	fleet.Sort(out)
	if r.am != nil {
		r.amNote = ""
		if err := r.am.mark(ctx, out); err != nil { // the alerts still list as firing
			r.amNote = err.Error()
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no instance with tablefull's metrics matches %s at %s", ErrNoInstances, r.with(""), r.where)
	}
	return out, nil
}

// fleetRows are the rows of a fleet answer by instance, at most
// MaxFleetInstances; over counts the instances beyond.
type fleetRows struct {
	rows map[string]*fleet.Row
	over int
}

// each hands every sample of v to set with its instance's row. A value
// out of range (NaN, ±Inf, negative, beyond 2^53) is unknown: left out,
// never a garbled number.
func (f *fleetRows) each(v pmodel.Vector, set func(rw *fleet.Row, s *pmodel.Sample, v float64)) {
	for _, s := range v {
		inst := bound(string(s.Metric[pmodel.InstanceLabel]))
		if f.rows[inst] == nil {
			if len(f.rows) >= MaxFleetInstances {
				f.over++
				continue
			}
			f.rows[inst] = &fleet.Row{Instance: inst}
		}
		if known(s.Value) {
			set(f.rows[inst], s, float64(s.Value))
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
