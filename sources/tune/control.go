package tune

import (
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tuning"
)

// Control is what the agent does for checked control requests
// (remote.Controller): the sampler's interval and census, and the
// host's tuning through the one tuner. A write under way is finished
// before the agent ends (Wait): a cut session leaves the host unchanged
// or fully applied with its undo record, never half.
type Control struct {
	Live  Sampler
	Tuner tuning.Tuner
	busy  sync.Mutex
}

// Sampler is the agent's sampler, as control requests change it
// (sources.Live).
type Sampler interface {
	SetInterval(d time.Duration)
	SetCensus(on bool)
}

// SetInterval implements remote.Controller.
func (a *Control) SetInterval(d time.Duration) { a.Live.SetInterval(d) }

// SetCensus implements remote.Controller.
func (a *Control) SetCensus(on bool) { a.Live.SetCensus(on) }

// Read implements tuning.Tuner.
func (a *Control) Read() (tuning.KnobState, error) { return a.Tuner.Read() }

// Apply implements tuning.Tuner.
func (a *Control) Apply(changes []tuning.Change, count uint64) ([]model.KnobResult, error) {
	a.busy.Lock()
	defer a.busy.Unlock()
	return a.Tuner.Apply(changes, count)
}

// Persist implements tuning.Tuner.
func (a *Control) Persist(changes []tuning.Change) ([]string, []string, error) {
	a.busy.Lock()
	defer a.busy.Unlock()
	return a.Tuner.Persist(changes)
}

// Undo implements tuning.Tuner.
func (a *Control) Undo() ([]model.KnobResult, error) {
	a.busy.Lock()
	defer a.busy.Unlock()
	return a.Tuner.Undo()
}

// Wait returns once no write is under way; none starts after it unless
// a request is still being served.
func (a *Control) Wait() {
	a.busy.Lock()
	defer a.busy.Unlock()
}
