// Package fleet is a fleet as its engine holds it: its totals, and rows
// of its hosts in one order, worst first, that the engine ranks by too.
package fleet

import (
	"sort"
	"time"

	"github.com/tablefull/tablefull/model/verdict"
)

// Row is one instance of a fleet as Prometheus holds it: what its
// exporter said over a window.
type Row struct {
	// Instance is Prometheus's instance label ("web-3:9874"); Labels
	// its other labels ("env=prod job=tablefull").
	Instance, Labels string
	// Kinds are the verdicts that held at the last scrape, most severe
	// first (empty: OK).
	Kinds []verdict.Kind
	// Count, Limit and Peak are the table now and its highest count in
	// the window; HasTable is false without conntrack numbers.
	Count, Limit, Peak uint64
	HasTable           bool
	// DropsPS is the table's drops per second now; NSDropsPS the host's
	// other namespaces' (their tables drop while the host's reads fine).
	DropsPS, NSDropsPS float64
	// Pinned is the time at the cap and Episodes the pinned episodes
	// begun, in the window.
	Pinned   time.Duration
	Episodes uint64
	// LastSeen is the newest scrape; Stale is set when the instance has
	// not answered for a while (its last numbers are kept).
	LastSeen time.Time
	Stale    bool
	// WorstNS is the host's fullest other namespace ("pod 3f2a…"), with
	// its count; "" when it exports none.
	WorstNS      string
	WorstNSCount uint64
	// Alerts are the instance's alerts firing in Prometheus, at most
	// MaxRowAlerts, most severe first.
	Alerts []Alert
}

// MaxRowAlerts bounds the alerts a row keeps: a rule file firing
// hundreds for one instance costs the row no more.
const MaxRowAlerts = 8

// Alert is an alert firing for a row's instance, and what Alertmanager
// does with it where one is asked (Known).
type Alert struct {
	Name, Severity string
	// Known says Alertmanager was read; Silenced and Inhibited say it
	// suppresses the alert (no page for it).
	Known, Silenced, Inhibited bool
}

// Paged reports whether the alert pages: firing and suppressed by
// nothing Alertmanager said.
func (a Alert) Paged() bool { return !a.Silenced && !a.Inhibited }

// severityRank orders alerts' severities, critical first.
func severityRank(s string) int {
	switch s {
	case "critical":
		return 0
	case "warning":
		return 1
	}
	return 2
}

// AddAlert keeps a firing alert in the row, most severe first, at most
// MaxRowAlerts (a less severe one goes first).
func (r *Row) AddAlert(a Alert) {
	i := sort.Search(len(r.Alerts), func(i int) bool {
		x := r.Alerts[i]
		return severityRank(x.Severity) > severityRank(a.Severity) || severityRank(x.Severity) == severityRank(a.Severity) && x.Name > a.Name
	})
	r.Alerts = append(r.Alerts, Alert{})
	copy(r.Alerts[i+1:], r.Alerts[i:])
	r.Alerts[i] = a
	if len(r.Alerts) > MaxRowAlerts {
		r.Alerts = r.Alerts[:MaxRowAlerts]
	}
}

// Verdict is the row's most severe verdict, OK when none holds.
func (r Row) Verdict() verdict.Kind {
	if len(r.Kinds) == 0 {
		return verdict.OK
	}
	return r.Kinds[0]
}
