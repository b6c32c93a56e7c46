package tune

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
)

// Control is what the agent does for checked control requests
// (remote.Controller): the sampler's interval and census, and the
// host's tuning.
type Control struct {
	Live  *sources.Live
	Tuner *Local
}

// SetInterval implements remote.Controller.
func (a *Control) SetInterval(d time.Duration) { a.Live.SetInterval(d) }

// SetCensus implements remote.Controller.
func (a *Control) SetCensus(on bool) { a.Live.SetCensus(on) }

// Knobs implements remote.Controller.
func (a *Control) Knobs() (map[string]string, uint64, bool, error) {
	cur, entry, err := a.Tuner.Read()
	return cur, entry, a.Tuner.Global(), err
}

// Apply implements remote.Controller.
func (a *Control) Apply(changes []model.Change, count uint64) ([]model.KnobResult, error) {
	return a.Tuner.Apply(changes, count)
}

// Persist implements remote.Controller.
func (a *Control) Persist(changes []model.Change) ([]string, []string, error) {
	return a.Tuner.Persist(changes)
}

// Undo implements remote.Controller.
func (a *Control) Undo() ([]model.KnobResult, error) { return a.Tuner.Undo() }
