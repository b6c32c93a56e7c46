package promread

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/metrics"
)

// fleetQueries writes the PromQL of one refresh of the fleet: the
// totals and the ranking over every instance in scope, whose answers
// the engine bounds (a count per state, topk of a score), then the
// details of the instances on the page alone. Every form is of PromQL's
// core (count by, topk, sort_desc, label_replace, last_over_time,
// rate, clamp_max, floor, time()): docs/fleet.md lists them as sent.
type fleetQueries struct {
	s scope
	w string // the window, as PromQL writes a duration
}

// number is a constant as PromQL reads it.
func number(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// lastSeen is each instance's newest sample time in the window: every
// instance in scope, answering or not.
func (q fleetQueries) lastSeen() string {
	return "max by (instance) (last_over_time(" + metrics.LastSample.Name + q.s.with("") + "[" + q.w + "]))"
}

// stale keeps the instances that have not answered for StaleAfter.
func (q fleetQueries) stale() string {
	return "(" + q.lastSeen() + " < time() - " + number(StaleAfter.Seconds()) + ")"
}

// drops is each instance's table's drops per second now.
func (q fleetQueries) drops() string {
	return "sum by (instance) (rate(" + metrics.Events.Name + q.s.with(`counter=~"drop|early_drop"`) + "[2m]))"
}

// totals counts the instances in scope per state and verdict, and the
// alerts firing for them, in one answer of a few series.
func (q fleetQueries) totals() string {
	tag := func(expr, m string) string { return `label_replace(` + expr + `, "m", "` + m + `", "", "")` }
	return strings.Join([]string{
		tag("count by (kind) ("+metrics.VerdictWorst.Name+q.s.with("")+")", "kind"),
		// every instance once, counted as stale ("1") or answering ("0")
		tag(`count_values("stale", `+q.lastSeen()+" < bool (time() - "+number(StaleAfter.Seconds())+"))", "hosts"),
		tag("count(max by (instance) (rate("+metrics.Pinned.Name+q.s.with("")+"[2m])) > 0)", "pinned"),
		tag("count("+q.drops()+" > 0)", "dropping"),
		tag("count(ALERTS"+q.s.with(`alertstate="firing"`)+")", "firing"),
	}, " or ")
}

// severity is each instance's severity term (fleet.SeverityKey), read
// from its one tablefull_verdict_worst series: a term per kind, or-joined
// most severe first so each instance keeps its worst. A kind's term
// selects only the hosts whose worst it is (by the label's index), so
// the query reads one series a host, never every kind's.
func (q fleetQueries) severity() string {
	type term struct {
		key  int
		expr string
	}
	var terms []term
	for _, k := range append(diagnose.ProblemKinds(), verdict.OK) {
		worst := "max by (instance) (" + metrics.VerdictWorst.Name + q.s.with(`kind="`+k.Label()+`"`) + ")"
		terms = append(terms, term{fleet.SeverityKey(k, false), worst + " * 0 + " + number(fleet.KindSeverityTerm(k))})
	}
	terms = append(terms, term{fleet.SeverityKey(verdict.OK, true), q.stale() + " * 0 + " + number(fleet.StaleSeverity())})
	sort.SliceStable(terms, func(i, j int) bool { return terms[i].key < terms[j].key })
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		parts = append(parts, "("+t.expr+")")
	}
	return "(" + strings.Join(parts, " or ") + ")"
}

// rank is the n instances of highest fleet.Score, highest first. The
// score's three terms are tagged apart and summed per instance, so an
// instance without drops or without a cap has no term for them, and no
// subexpression is evaluated twice to stand in for a missing one.
func (q fleetQueries) rank(n int) string {
	tag := func(expr, t string) string { return `label_replace(` + expr + `, "t", "` + t + `", "", "")` }
	drops := "floor(clamp_max(" + q.drops() + ", " + number(fleet.DropsCeiling) + ") * 100) * " + number(fleet.DropsWeight)
	count := "max by (instance) (" + metrics.Entries.Name + q.s.with("") + ")"
	limit := "(max by (instance) (" + metrics.Limit.Name + q.s.with("") + ") > 0)"
	fill := "clamp_max(floor(100 * " + count + " / on (instance) " + limit + "), " + number(fleet.FillCeiling) + ")"
	score := "sum by (instance) (" + tag(q.severity()+" * "+number(fleet.SeverityWeight), "s") + " or " + tag(drops, "d") + " or " + tag(fill, "f") + ")"
	return "sort_desc(topk(" + strconv.Itoa(n) + ", " + score + "))"
}

// onPage narrows the scope to the instances of a page.
func (q fleetQueries) onPage(instances []string) fleetQueries {
	alts := make([]string, len(instances))
	for i, in := range instances {
		alts[i] = regexp.QuoteMeta(in)
	}
	q.s = scope(joinMatchers("instance=~"+strconv.Quote(strings.Join(alts, "|")), string(q.s)))
	return q
}

// details are the five queries of the page's rows: table and verdicts,
// peak, drops, the window's history (pinned time, episodes, fullest
// other namespace, firing alerts), and the newest sample's time.
func (q fleetQueries) details() []string {
	w, with := q.w, q.s.with
	return []string{
		with(`__name__=~"`+metrics.AnyOf(metrics.Entries.Name, metrics.Limit.Name)+`"`) + " or " +
			// the held verdicts only, named again: an engine may drop a
			// filtered series' name (MetricsQL does)
			`label_replace(` + metrics.Verdict.Name + with("") + ` == 1, "__name__", "` + metrics.Verdict.Name + `", "", "")`,
		"max by (instance) (max_over_time(" + metrics.Peak.Name + with("") + "[" + w + "]))",
		q.drops() + " or " +
			`label_replace(sum by (instance) (rate(` + metrics.NSDrops.Name + with("") + `[2m])), "m", "ns", "", "")`,
		`label_replace(sum by (instance) (increase(` + metrics.Pinned.Name + with("") + "[" + w + `])), "m", "pinned", "", "") or ` +
			`label_replace(sum by (instance) (increase(` + metrics.Episodes.Name + with("") + "[" + w + `])), "m", "episodes", "", "") or ` +
			`label_replace(topk by (instance) (1, ` + metrics.NSEntries.Name + with("") + `), "m", "worstns", "", "") or ` +
			`label_replace(ALERTS` + with(`alertstate="firing"`) + `, "m", "alert", "", "")`,
		q.lastSeen(),
	}
}

// readTotals reads the totals' answer.
func readTotals(v pmodel.Vector) fleet.Totals {
	t := fleet.Totals{Kinds: map[verdict.Kind]int{}}
	for _, s := range v {
		if !known(s.Value) {
			continue
		}
		n := int(s.Value)
		switch s.Metric["m"] {
		case "kind":
			if k, ok := diagnose.KindOfLabel(string(s.Metric["kind"])); ok {
				t.Kinds[k] = n
			}
		case "hosts":
			t.Hosts += n
			if s.Metric["stale"] == "1" {
				t.Stale = n
			}
		case "pinned":
			t.Pinned = n
		case "dropping":
			t.Dropping = n
		case "firing":
			t.Firing = n
		}
	}
	return t
}
