package tunecmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/tuning/surfacetest"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

const repoRoot = "../../../.."

// readTuner reads knobs and writes nothing: a recorded host's tuner.
type readTuner struct {
	values map[string]string
	child  bool
}

func (r readTuner) Read() (tuning.KnobState, error) {
	return tuning.KnobState{Current: maps.Clone(r.values), EntryBytes: 256, Global: !r.child}, nil
}
func (readTuner) Apply([]tuning.Change, uint64) ([]knob.Result, error) {
	return nil, errors.New("read only")
}
func (readTuner) Persist([]tuning.Change) ([]string, []string, error) {
	return nil, nil, errors.New("read only")
}
func (readTuner) Undo() ([]knob.Result, error) { return nil, errors.New("read only") }

// dryRunPlan is the plan tune --dry-run --json prints when it measures
// samples (a recording's feed) through a tuner of knobs, with the
// diagnosis it prints beside it.
func dryRunPlan(t *testing.T, host model.Host, samples []model.Sample, knobs map[string]string, child bool) (tuning.Plan, *tuning.Said) {
	t.Helper()
	dir := t.TempDir()
	host0 := filepath.Join(repoRoot, "testdata/hosts/table-pinned")
	roots := kernelfs.Roots{Proc: host0 + "/proc", Sys: host0 + "/sys", Etc: filepath.Join(dir, "etc"), Run: dir}
	feed := func() (model.Feed, error) {
		return recording.NewReplay(&recording.Recording{Host: host, Samples: samples}, "replay"), nil
	}
	var out bytes.Buffer
	err := Command(roots, CommandOptions{DryRun: true, JSON: true, Observe: time.Hour, StateDir: filepath.Join(dir, "state"),
		Target: readTuner{values: knobs, child: child}, Feed: feed}, &out)
	var exit exitcode.Error
	if err != nil && !(errors.As(err, &exit) && exit.Code == exitcode.Refused) {
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

// TestDryRunPlanIsTheRecordedPlan: at every moment of recorded incidents
// the tuning panel's test asks its plan at (surfacetest.Moments), tune
// --dry-run --json prints the plan recorded for it, which the panel
// shows (tui's TestPanelPlanIsTheRecordedPlan), and says the diagnosis
// of the console's frame.
func TestDryRunPlanIsTheRecordedPlan(t *testing.T) {
	want := surfacetest.Read(t, filepath.Join(repoRoot, surfacetest.PlansFile))
	asked := 0
	for _, file := range recordingtest.Incidents(t, repoRoot) {
		rec := recordingtest.Read(t, file)
		surfacetest.Moments(rec.Samples, func(k int, last diagnose.Frame) {
			for _, child := range []bool{false, true} {
				samples := rec.Samples[:k]
				dry, said := dryRunPlan(t, rec.Host, samples, surfacetest.KnobsOf(samples[k-1]), child)
				at := surfacetest.Plan{File: surfacetest.Name(t, repoRoot, file), Samples: k, Child: child}
				if w, ok := want[at.Key()]; !ok || surfacetest.Digest(t, dry) != w {
					t.Fatalf("%s, %d samples, child %v: tune --dry-run's plan is not the panel's, recorded: %+v", file, k, child, dry)
				}
				asked++
				if want := (tuning.Diagnosis{Now: last}).Said(); said == nil || said.Kind != want.Kind || said.Fills != want.Fills || len(said.Verdicts) != len(want.Verdicts) {
					t.Fatalf("%s, %d samples: tune --dry-run --json says %+v, the console's frame %+v", file, k, said, want)
				}
			}
		})
	}
	if asked != len(want) {
		t.Errorf("%d moments asked, %d recorded: the recorded plans are not the panel's moments", asked, len(want))
	}
}
