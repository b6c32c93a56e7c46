package report

import (
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/tui/printedtest"
)

// neverPressed are the recordings whose table never pressed before a
// knob changed (their trouble is not the table's size): the report asks
// no plan of them. Every other recording is held to the one plan, so a
// Diagnosis that failed for all cannot pass as all skipped.
var neverPressed = map[string]bool{"lab-clash.jsonl": true, "lab-cpu-bound.jsonl": true, "lab-gc-behind.jsonl": true,
	"lab-hash-chains.jsonl": true, "lab-healthy.jsonl": true, "lab-listen-overflow.jsonl": true,
	"lab-stale-dnat.jsonl": true, "lab-stale-timeouts.jsonl": true}

// frameList is frames as diagnose.Frames.
type frameList []diagnose.Frame

func (l frameList) Len() int                { return len(l) }
func (l frameList) At(i int) diagnose.Frame { return l[i] }

// TestReportPlanIsTheOnePlan: over every recording we have, the report's
// plan is the one tuning.Diagnose makes from every frame up to the
// moment the report says it was asked for, with the knobs of that
// moment: what tablefull tune --dry-run shows for the same frames. The
// report keeps only the frames the planner reads; this holds it to the
// whole history. A recording that holds its own fix is proposed no more
// than twice the cap that freed it. That moment's diagnosis agrees with
// itself.
func TestReportPlanIsTheOnePlan(t *testing.T) {
	paths := recordingtest.Incidents(t, "../..")
	checked := 0
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := buildFile(t, path, Options{})
			gd, ok := r.Incident.Diagnosis(0)
			got := gd.Plan
			if calm := neverPressed[filepath.Base(path)]; !ok || calm {
				if ok == calm { // a recording that should press did not, or the other way
					t.Errorf("pressed before a knob changed: %v, want %v", ok, !calm)
				}
				return
			}
			checked++
			at := r.Incident.PlanAt()
			rec := recordingtest.Read(t, path)
			an := diagnose.NewAnalyzer(2)
			var frames frameList
			for _, s := range rec.Samples {
				if fr := an.Add(s); !s.Time.After(at) {
					frames = append(frames, fr)
				}
			}
			now := frames[len(frames)-1]
			knobs := tuning.KnobState{Current: incident.KnobsAt(now.Sample.Conntrack), Global: true}
			d := tuning.Diagnose(tuning.Guide{Knobs: knobs, Host: rec.Host, Measured: frames, Now: now})
			if !reflect.DeepEqual(got, d.Plan) {
				t.Errorf("the report's plan differs from the one plan at %v:\nreport %+v\nplan   %+v", at, got, d.Plan)
			}
			for _, c := range d.Contradictions() {
				t.Errorf("the report's moment at %v: %s", at, c)
			}
			if fr, ok := r.Incident.FreedBy(); ok && fr.By.Key == knob.Max {
				freed, _ := strconv.ParseUint(fr.By.After, 10, 64)
				for _, c := range got.Changes {
					if v, _ := strconv.ParseUint(c.Proposed, 10, 64); c.Key == knob.Max && v > 2*freed {
						t.Errorf("the recording was freed at %d and the plan proposes %d: more than twice what freed it", freed, v)
					}
				}
			}
		})
	}
	if want := len(paths) - len(neverPressed); checked != want {
		t.Errorf("%d recordings held to the one plan, want %d", checked, want)
	}
}

// TestReportArithmeticComputes: over every recording we have, each rate
// × hold the report prints (its story, its arithmetic, its plan's why)
// computes: the printed product is the printed rate times the hold.
func TestReportArithmeticComputes(t *testing.T) {
	seen := 0
	for _, path := range recordingtest.Incidents(t, "../..") {
		md := strings.ReplaceAll(string(buildFile(t, path, Options{}).Markdown()), `\_`, "_")
		faults, read := printedtest.ArithmeticFaults(md)
		seen += read
		for _, f := range faults {
			t.Errorf("%s prints %s", filepath.Base(path), f)
		}
	}
	if seen == 0 {
		t.Fatal("no product found in any report: the test reads nothing")
	}
}
