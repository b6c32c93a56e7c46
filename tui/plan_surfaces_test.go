package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

// knobsOf are the knobs a recorded sample read, as a tuner of that host
// would read them.
func knobsOf(s model.Sample) map[string]string {
	c := s.Conntrack
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	return map[string]string{model.KnobMax: u(c.Max), model.KnobHashsize: u(c.Buckets), model.KnobTimeWait: u(c.TimeWaitHold),
		model.KnobUDPTimeout: u(c.Holds[model.ClassUDPSingle]), model.KnobSynSent: u(c.Holds[model.ClassTCPUnanswered]),
		model.KnobUDPStream: u(c.Holds[model.ClassUDPStream]), model.KnobSomaxconn: "4096", model.KnobSynBacklog: "512",
		model.KnobPortRange: "32768 60999", model.KnobTwReuse: "2"}
}

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

// dryRunPlan is the plan tune --dry-run --json prints when it measures
// the same samples (a recording's feed) through the same tuner, with the
// diagnosis it prints beside it.
func dryRunPlan(t *testing.T, host model.Host, samples []model.Sample, knobs map[string]string, child bool) (tuning.Plan, *tuning.Said) {
	t.Helper()
	dir := t.TempDir()
	roots := kernelfs.Roots{Proc: "../testdata/hosts/table-pinned/proc", Sys: "../testdata/hosts/table-pinned/sys", Etc: filepath.Join(dir, "etc"), Run: dir}
	feed := func() (model.Feed, error) {
		return remote.NewReplay(&remote.Recording{Host: host, Samples: samples}, "replay"), nil
	}
	var out bytes.Buffer
	err := tune.Command(roots, tune.CommandOptions{DryRun: true, JSON: true, Observe: time.Hour, StateDir: filepath.Join(dir, "state"),
		Target: &fakeTuner{values: knobs, child: child}, Feed: feed}, &out)
	var exit tune.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Code == tune.ExitRefused) {
		t.Fatalf("tune --dry-run: %v", err)
	}
	var report struct {
		Plan      tuning.Plan  `json:"plan"`
		Diagnosis *tuning.Said `json:"diagnosis"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("tune --dry-run --json: %v: %s", err, out.String())
	}
	return report.Plan, report.Diagnosis
}

// TestPanelPlanIsDryRunPlan: over every prefix of recorded incidents
// (the demo, the lab's, and redis without keep-alive, DNS churn and a
// growing pool recorded here), the panel's plan is the plan tune
// --dry-run --json prints for the same inputs, from a tuner that writes
// the global knobs and from one inside the namespace; while pinned or
// dropping it is a change or a refusal.
func TestPanelPlanIsDryRunPlan(t *testing.T) {
	pressedFiles, files := 0, recordings(t)
	defer func() {
		if pressedFiles < len(files)/2 { // a healthy lab never pins; most recordings are of a pin
			t.Errorf("%d of %d recordings pin or drop: the test says little of a pin", pressedFiles, len(files))
		}
	}()
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := remote.ReadRecording(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		an := model.NewAnalyzer(len(rec.Samples))
		pressedSeen := false
		// Every prefix of a short recording; of a long one, 40 spread
		// over it and its last (each prefix replays all before it).
		stride := max(1, len(rec.Samples)/40)
		for k := 1; k <= len(rec.Samples); k++ {
			samples := rec.Samples[:k]
			last := an.Add(samples[k-1])
			pressed := last.Pinned || last.Rates.Drops() > 0
			pressedSeen = pressedSeen || pressed
			if k%stride != 0 && k != len(rec.Samples) {
				continue
			}
			for _, child := range []bool{false, true} {
				knobs := knobsOf(samples[k-1])
				panel := panelPlan(t, rec.Host, samples, knobs, child)
				dry, said := dryRunPlan(t, rec.Host, samples, knobs, child)
				if !reflect.DeepEqual(normal(t, panel), normal(t, dry)) {
					t.Fatalf("%s, %d samples, child %v:\npanel:   %+v\ndry run: %+v", file, k, child, panel, dry)
				}
				if want := (tuning.Diagnosis{Now: last}).Said(); said == nil || said.Kind != want.Kind || said.Fills != want.Fills || len(said.Verdicts) != len(want.Verdicts) {
					t.Fatalf("%s, %d samples: tune --dry-run --json says %+v, the console's frame %+v", file, k, said, want)
				}
				for _, c := range (tuning.Diagnosis{Now: last, Plan: panel}).Contradictions() {
					t.Errorf("%s, %d samples, child %v: %s", file, k, child, c)
				}
				if pressed && panel.Empty() && panel.Refusal == "" {
					t.Fatalf("%s, %d samples: pinned or dropping and the plan says nothing: %+v", file, k, panel)
				}
			}
		}
		if pressedSeen {
			pressedFiles++
		}
	}
}

// normal is p as JSON reads it back (nil and empty lists alike).
func normal(t *testing.T, p tuning.Plan) tuning.Plan {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var out tuning.Plan
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
