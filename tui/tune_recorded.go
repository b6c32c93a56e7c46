package tui

import (
	"errors"

	"github.com/tablefull/tablefull/model"
	folded "github.com/tablefull/tablefull/model/incident" // the tests name a helper incident
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
)

// errRecorded is an apply, persist or undo asked of a feed that only
// tells what happened: a recording, the demo, Prometheus.
var errRecorded = errors.New("read-only: this is a recorded moment's plan; apply it on its host (tablefull tune)")

// recordedTuner is the t panel's tuner over a feed that writes nothing:
// the knobs are the moment's as its sample carries them (max, buckets,
// the holds), so the plan is the one tune --dry-run would have made then.
type recordedTuner struct{ at model.Conntrack }

func (r recordedTuner) Read() (tuning.KnobState, error) {
	return tuning.KnobState{Current: folded.KnobsAt(r.at), Global: true}, nil
}

func (recordedTuner) Apply([]tuning.Change, uint64) ([]knob.Result, error) { return nil, errRecorded }

func (recordedTuner) Persist([]tuning.Change) ([]string, []string, error) {
	return nil, nil, errRecorded
}

func (recordedTuner) Undo() ([]knob.Result, error) { return nil, errRecorded }
