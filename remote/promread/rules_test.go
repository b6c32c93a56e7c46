package promread

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pmodel "github.com/prometheus/common/model"
)

var updateRules = flag.Bool("update-rules", false, "rewrite deploy/prometheus/tablefull-fleet.rules.yml from fleetRules")

// fleetRulesPath is the fleet's recording rules as shipped.
const fleetRulesPath = "../../deploy/prometheus/tablefull-fleet.rules.yml"

// fleetRulesFile is the shipped file's text: fleetRules, one group.
func fleetRulesFile() string {
	var b strings.Builder
	b.WriteString(`# The fleet view's recording rules, for the Prometheus (or VictoriaMetrics'
# vmalert, Thanos' or Mimir's ruler) that a fleet's exporters are scraped
# into: the engine evaluates the fleet's totals and ranking once an interval,
# and each refresh of ` + "`tablefull --prometheus URL`" + ` reads their few series
# instead of every host's (docs/fleet.md). Written by
# ` + "`go test ./remote/promread -run TestFleetRulesAreTheQueries -update-rules`" + `:
# the queries a refresh sends without them, unnarrowed, over the default
# window (--since 1h).
groups:
  - name: tablefull.fleet
    interval: ` + RecordedEvery.String() + `
    rules:
`)
	for _, r := range fleetRules() {
		b.WriteString("      - record: " + r.Record + "\n        expr: |\n          " + r.Expr + "\n")
	}
	return b.String()
}

// TestFleetRulesAreTheQueries: the shipped recording rules are the
// queries a refresh sends without them; promtool takes them, and they
// record what their unit tests say of four hosts.
func TestFleetRulesAreTheQueries(t *testing.T) {
	got, err := os.ReadFile(fleetRulesPath)
	if want := fleetRulesFile(); err != nil || string(got) != want {
		if *updateRules {
			if err := os.WriteFile(fleetRulesPath, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s is not the rules fleetRules writes (%v): go test ./remote/promread -run TestFleetRulesAreTheQueries -update-rules", fleetRulesPath, err)
	}
	if _, err := exec.LookPath("promtool"); err != nil {
		t.Skip("needs promtool (Debian's prometheus package)")
	}
	for _, args := range [][]string{
		{"check", "rules", "tablefull-fleet.rules.yml"},
		{"test", "rules", "tablefull-fleet.rules.test.yml"},
	} {
		cmd := exec.Command("promtool", args...)
		cmd.Dir = filepath.Dir(fleetRulesPath)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// rule is one recording rule: the series it records and its PromQL.
type rule struct {
	Record, Expr string
}

// fleetRules is the fleet's recording rules: the totals' and the
// ranking's queries over every instance, unnarrowed, as a refresh
// sends them.
func fleetRules() []rule {
	q := fleetQueries{w: pmodel.Duration(RecordedWindow).String()}
	terms := q.rankTerms()
	for i, t := range terms {
		// each instance at its highest term, as mergeRanked keeps it
		terms[i] = `label_replace(` + t + `, "part", "` + strconv.Itoa(i) + `", "", "")`
	}
	return []rule{
		{TotalsRecord, strings.Join(q.totals(), " or ")},
		{RankRecord, "topk(" + strconv.Itoa(RecordedDepth) + ", max by (instance) (" + strings.Join(terms, " or ") + "))"},
	}
}
