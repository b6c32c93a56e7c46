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

// totals are the counts of the instances in scope per state and
// verdict, and of the alerts firing for them: one query each, sent side
// by side (an engine evaluates one query's parts one after another),
// each answering a few series tagged with what it counts.
func (q fleetQueries) totals() []string {
	tag := func(expr, m string) string { return `label_replace(` + expr + `, "m", "` + m + `", "", "")` }
	return []string{
		tag("count by (kind) ("+metrics.VerdictWorst.Name+q.s.with("")+")", "kind"),
		// every instance once, counted as stale ("1") or answering ("0")
		tag(`count_values("stale", `+q.lastSeen()+" < bool (time() - "+number(StaleAfter.Seconds())+"))", "hosts"),
		tag("count(max by (instance) (rate("+metrics.Pinned.Name+q.s.with("")+"[2m])) > 0)", "pinned"),
		// every scored instance once, counted as dropping ("1") or not
		// ("0") by the drops term of its score (fleet.DropsTerm)
		tag(`count_values("dropping", `+q.served()+" % "+number(fleet.SeverityWeight)+" >= bool "+number(fleet.DropsWeight)+")", "scored"),
		tag("count(ALERTS"+q.s.with(`alertstate="firing"`)+")", "firing"),
	}
}

// served is each instance's fleet score as its exporter serves it
// (metrics.FleetScore): one series a host, ranked without reading its
// counters.
func (q fleetQueries) served() string {
	return "max by (instance) (" + metrics.FleetScore.Name + q.s.with("") + ")"
}

// byVerdict is the severity term (times fleet.SeverityWeight) of the
// instances whose worst verdict is a problem, read from their one
// tablefull_verdict_worst series: what ranks an instance whose exporter
// serves no score. The OK hosts of exporters serving no score are left
// out: their term would read every host's series.
func (q fleetQueries) byVerdict() string {
	type term struct {
		key  int
		expr string
	}
	var terms []term
	for _, k := range diagnose.ProblemKinds() {
		worst := "max by (instance) (" + metrics.VerdictWorst.Name + q.s.with(`kind="`+k.Label()+`"`) + ")"
		terms = append(terms, term{fleet.SeverityKey(k, false), worst + " * 0 + " + number(fleet.KindSeverityTerm(k)*fleet.SeverityWeight)})
	}
	sort.SliceStable(terms, func(i, j int) bool { return terms[i].key < terms[j].key })
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		parts = append(parts, "("+t.expr+")")
	}
	return strings.Join(parts, " or ")
}

// staleTerm is the severity term of the stale instances: what places a
// stale instance, whose last score may still be read, where a stale row
// goes.
func (q fleetQueries) staleTerm() string {
	return q.stale() + " * 0 + " + number(fleet.StaleSeverity()*fleet.SeverityWeight)
}

// rank is the queries of the n instances of highest fleet.Score, each
// highest first: the score each exporter serves, the verdict's term
// alone (an older exporter serves no score) and the staleness's term
// alone (a stale host answers no score). Each reads the whole fleet, so
// they go side by side, not as the parts of one query the engine would
// evaluate one after another; the console keeps each instance's highest
// (mergeRanked): the n highest of each hold the n highest of all.
func (q fleetQueries) rank(n int) []string {
	terms := q.rankTerms()
	for i, t := range terms {
		terms[i] = "sort_desc(topk(" + strconv.Itoa(n) + ", " + t + "))"
	}
	return terms
}

// rankTerms are the ranking's three terms, each an instance's score by
// one of them.
func (q fleetQueries) rankTerms() []string {
	return []string{q.served(), q.byVerdict(), q.staleTerm()}
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
	scored := 0
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
		case "firing":
			t.Firing = n
		case "scored":
			scored += n
			if s.Metric["dropping"] == "1" {
				t.Dropping = n
			}
		}
	}
	// an exporter serves its score beside its worst verdict, and a stale
	// one's both linger (or go) alike: the rest serve no score
	for _, n := range t.Kinds {
		t.Unscored += n
	}
	t.Unscored = max(0, t.Unscored-scored)
	return t
}
