package report

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote"
)

// frameList is frames as model.Frames.
type frameList []model.Frame

func (l frameList) Len() int             { return len(l) }
func (l frameList) At(i int) model.Frame { return l[i] }

// TestReportPlanIsTheOnePlan: over every recording we have, the report's
// plan is the one tuning.ProposeNext makes from every frame up to the
// moment the report says it was asked for, with the knobs of that
// moment: what tablefull tune --dry-run shows for the same frames. The
// report keeps only the frames the planner reads; this holds it to the
// whole history. A recording that holds its own fix is proposed no more
// than twice the cap that freed it.
func TestReportPlanIsTheOnePlan(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/incidents/*.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	demo, _ := filepath.Glob("../demo/*.jsonl")
	more = append(more, demo...)
	paths = append(paths, more...)
	if len(paths) < 3 {
		t.Fatalf("recordings not found: %v", paths)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := buildFile(t, path, Options{})
			got, ok := r.Incident.Plan(0)
			if !ok {
				t.Skip("never pressed before a knob changed")
			}
			at := r.Incident.PlanAt()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := remote.ReadRecording(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			an := model.NewAnalyzer(2)
			var frames frameList
			for _, s := range rec.Samples {
				if fr := an.Add(s); !s.Time.After(at) {
					frames = append(frames, fr)
				}
			}
			now := frames[len(frames)-1]
			knobs := tuning.KnobState{Current: incident.KnobsAt(now.Sample.Conntrack), Global: true}
			want, _ := tuning.ProposeNext(tuning.Guide{Knobs: knobs, Host: rec.Host, Measured: frames, Now: now})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the report's plan differs from the one plan at %v:\nreport %+v\nplan   %+v", at, got, want)
			}
			if fr, ok := r.Incident.FreedBy(); ok && fr.By.Key == model.KnobMax {
				freed, _ := strconv.ParseUint(fr.By.After, 10, 64)
				for _, c := range got.Changes {
					if v, _ := strconv.ParseUint(c.Proposed, 10, 64); c.Key == model.KnobMax && v > 2*freed {
						t.Errorf("the recording was freed at %d and the plan proposes %d: more than twice what freed it", freed, v)
					}
				}
			}
		})
	}
}

// products are the report's rate × hold: "80/s × 120 s = 9,600", "…
// needs 9,600", and the plan's "80/s held 120 s each need 9,600 entries".
var products = regexp.MustCompile(`([0-9][0-9,.]*)/s(?: before the pin)? (?:× ([0-9]+) s (?:=|needs)|held ([0-9]+) s each need) ([0-9][0-9,]*)`)

// TestReportArithmeticComputes: over every recording we have, each rate
// × hold the report prints (its story, its arithmetic, its plan's why)
// computes: the printed product is the printed rate times the hold.
func TestReportArithmeticComputes(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/incidents/*.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	demo, _ := filepath.Glob("../demo/*.jsonl")
	seen := 0
	for _, path := range append(append(paths, more...), demo...) {
		md := strings.ReplaceAll(string(buildFile(t, path, Options{}).Markdown()), `\_`, "_")
		for _, g := range products.FindAllStringSubmatch(md, -1) {
			seen++
			rate, _ := strconv.ParseFloat(strings.ReplaceAll(g[1], ",", ""), 64)
			hold, _ := strconv.ParseFloat(g[2]+g[3], 64)
			got, _ := strconv.ParseFloat(strings.ReplaceAll(g[4], ",", ""), 64)
			if math.Abs(rate*hold-got) > 0.5 {
				t.Errorf("%s prints %q: %s × %s is %s", filepath.Base(path), g[0], g[1], g[2]+g[3], model.Num(rate*hold))
			}
		}
	}
	if seen == 0 {
		t.Fatal("no product found in any report: the test reads nothing")
	}
}
