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

// TestScoreTermsApart: each term of the score stays below the weight of
// the one above it and the sum stays within float64's exact integers,
// so the engine's number and the console's order agree: a row one
// severity worse ranks above any drops and fill, more drops above any
// fill.
func TestScoreTermsApart(t *testing.T) {
	if top := DropsTerm(2*DropsCeiling)*DropsWeight + FillTerm(1, 1); top >= SeverityWeight {
		t.Errorf("drops and fill reach %g, the severity weight is %g", top, float64(SeverityWeight))
	}
	if FillTerm(5000, 1) >= DropsWeight {
		t.Errorf("the fill term reaches %g, the drops weight is %d", FillTerm(5000, 1), DropsWeight)
	}
	worst := Row{Kinds: []verdict.Kind{verdict.TableFull}, DropsPS: 1e9, Peak: 1 << 40, Limit: 1}
	if s := Score(worst); s >= 1<<53 {
		t.Errorf("the highest score %g is past 2^53", s)
	}
	calmer := Row{Kinds: []verdict.Kind{verdict.NearCap}, DropsPS: 1e9, Peak: 100, Limit: 100}
	quiet := Row{Kinds: []verdict.Kind{verdict.TableFull}}
	if Score(calmer) >= Score(quiet) {
		t.Errorf("a warning with drops %g ranks above a table full without %g", Score(calmer), Score(quiet))
	}
	if a, b := (Row{DropsPS: 0.02}), (Row{DropsPS: 0.01, Peak: 99, Limit: 100}); Score(a) <= Score(b) {
		t.Errorf("0.02 drops/s %g ranks below 0.01 with a full table %g", Score(a), Score(b))
	}
}
