package tui

import (
	"flag"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/tuning/surfacetest"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
)

// panelPlan is the plan the tuning panel shows when t is pressed after
// samples, on a tuner that reads knobs (global: whether it writes the
// global ones).
func panelPlan(t *testing.T, host model.Host, samples []model.Sample, knobs map[string]string, child bool) tuning.Plan {
	t.Helper()
	feed := newScriptFeed(t, nil)
	feed.host = host
	a := New(feed, Options{Interval: time.Second, Tuner: &fakeTuner{values: knobs, child: child}})
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for _, s := range samples {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("t"))
	return a.tune.plan
}

// updatePlans rewrites the recorded plans (surfacetest.PlansFile) from
// the panel's. Both the panel (here) and tune --dry-run --json
// (cmd/tablefull/internal/tunecmd's TestDryRunPlanIsTheRecordedPlan) are
// held to that file: the two surfaces agree through it.
var updatePlans = flag.Bool("update-plans", false, "rewrite testdata/plans/surfaces.jsonl from the panel's plans")

// TestPanelPlanIsTheRecordedPlan: over prefixes of recorded incidents
// (the demo, the lab's, and redis without keep-alive, DNS churn and a
// growing pool recorded here), the panel's plan, from a tuner that
// writes the global knobs and from one inside the namespace, is the one
// plansFile holds for that moment, which tune --dry-run --json prints
// too; while pinned or dropping it is a change or a refusal.
func TestPanelPlanIsTheRecordedPlan(t *testing.T) {
	pressedFiles, files := 0, recordings(t)
	defer func() {
		if pressedFiles < len(files)/2 { // a healthy lab never pins; most recordings are of a pin
			t.Errorf("%d of %d recordings pin or drop: the test says little of a pin", pressedFiles, len(files))
		}
	}()
	want := map[string]string{}
	if !*updatePlans {
		want = surfacetest.Read(t, "../"+surfacetest.PlansFile)
	}
	var got []surfacetest.Plan
	for _, file := range files {
		rec := recordingtest.Read(t, file)
		pressedSeen := false
		surfacetest.Moments(rec.Samples, func(k int, last diagnose.Frame) {
			pressed := last.Pinned || last.Rates.Drops() > 0
			pressedSeen = pressedSeen || pressed
			for _, child := range []bool{false, true} {
				samples := rec.Samples[:k]
				panel := panelPlan(t, rec.Host, samples, surfacetest.KnobsOf(samples[k-1]), child)
				at := surfacetest.Plan{File: surfacetest.Name(t, "..", file), Samples: k, Child: child, Digest: surfacetest.Digest(t, panel)}
				got = append(got, at)
				if w, ok := want[at.Key()]; !*updatePlans && (!ok || at.Digest != w) {
					t.Fatalf("%s, %d samples, child %v: the panel's plan is not the one recorded (go test ./tui -run PlanIsTheRecorded -update-plans, if it is right): %+v", file, k, child, panel)
				}
				for _, c := range (tuning.Diagnosis{Now: last, Plan: panel}).Contradictions() {
					t.Errorf("%s, %d samples, child %v: %s", file, k, child, c)
				}
				if pressed && panel.Empty() && panel.Refusal == "" {
					t.Fatalf("%s, %d samples: pinned or dropping and the plan says nothing: %+v", file, k, panel)
				}
			}
		})
		if pressedSeen {
			pressedFiles++
		}
	}
	if *updatePlans {
		surfacetest.Write(t, "../"+surfacetest.PlansFile, got)
	}
}
