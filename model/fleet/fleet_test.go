package fleet

import (
	"fmt"
	"testing"

	"github.com/tablefull/tablefull/model/verdict"
)

func TestSortFleet(t *testing.T) {
	rows := []Row{
		{Instance: "ok-b", Labels: "env=staging job=edge"},
		{Instance: "near", Kinds: []verdict.Kind{verdict.NearCap}, Peak: 3900, Limit: 4096},
		{Instance: "gone", Stale: true},
		{Instance: "full-slow", Kinds: []verdict.Kind{verdict.TableFull}, DropsPS: 3},
		{Instance: "ok-a"},
		{Instance: "full-fast", Kinds: []verdict.Kind{verdict.TableFull}, DropsPS: 300},
		{Instance: "listen", Kinds: []verdict.Kind{verdict.ListenOverflow}},
	}
	Sort(rows)
	want := []string{"full-fast", "full-slow", "listen", "gone", "near", "ok-a", "ok-b"}
	for i, w := range want {
		if rows[i].Instance != w {
			t.Fatalf("order %v, want %v", instances(rows), want)
		}
	}
	if got := Filter(rows, "FULL"); len(got) != 2 {
		t.Errorf("filter FULL: %v", instances(got))
	}
	if got := Filter(rows, "env=staging"); len(got) != 1 || got[0].Instance != "ok-b" {
		t.Errorf("filter by label: %v", instances(got))
	}
}

func instances(rows []Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Instance)
	}
	return out
}

// TestRowKeepsItsWorstAlerts: a row's alerts are kept critical first,
// then by name, and at most MaxRowAlerts: a less severe one goes first.
func TestRowKeepsItsWorstAlerts(t *testing.T) {
	var r Row
	for i := range MaxRowAlerts + 3 {
		r.AddAlert(Alert{Name: fmt.Sprintf("Info%02d", i), Severity: "info"})
	}
	r.AddAlert(Alert{Name: "NearCap", Severity: "warning"})
	r.AddAlert(Alert{Name: "TableFull", Severity: "critical"})
	if len(r.Alerts) != MaxRowAlerts {
		t.Fatalf("%d alerts kept, want %d", len(r.Alerts), MaxRowAlerts)
	}
	if r.Alerts[0].Name != "TableFull" || r.Alerts[1].Name != "NearCap" || r.Alerts[2].Name != "Info00" {
		t.Errorf("alerts in the order %v", r.Alerts)
	}
}
