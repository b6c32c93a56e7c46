package tune

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// Control is what the agent does for checked control requests
// (agent.Controller): the sampler's interval and census, and the
// host's tuning through the one tuner. A write under way is finished
// before the agent ends (Wait): a cut session leaves the host unchanged
// or fully applied with its undo record, never half.
type Control struct {
	Live  model.Sampler
	Tuner tuning.Tuner
	// The agent's own limits, whatever a request says: CountNow re-reads
	// the live count (nil: the request's count is all there is), and
	// MemTotal bounds the table's memory (0: not read, no bound).
	CountNow func() (uint64, error)
	MemTotal uint64
	// Entries lists the table's entries and Deleter deletes them, as
	// sources.ListEntries and sources.DeleteEntries do (nil: the agent
	// answers that it does not).
	Entries func(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error)
	Deleter func(filter entry.Filter, established bool) (entry.Deletion, error)
	// Follow follows the entries a filter matches, as
	// sources.EntriesFollower does (nil: the agent answers that it does
	// not).
	Follow func(filter entry.Filter) (entry.Following, error)
	busy   sync.Mutex
}

// errNoEntries is an agent built without a lister or a deleter, and
// errNoFollow one without a follower.
var (
	errNoEntries = errors.New("this agent does not list entries")
	errNoFollow  = errors.New("this agent does not follow entries")
)

// ListEntries lists the entries filter matches (agent.EntriesController).
func (a *Control) ListEntries(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error) {
	if a.Entries == nil {
		return nil, errNoEntries
	}
	return a.Entries(filter, sort, desc, limit)
}

// FollowEntries follows the entries filter matches
// (agent.EntriesFollowController).
func (a *Control) FollowEntries(filter entry.Filter) (entry.Following, error) {
	if a.Follow == nil {
		return nil, errNoFollow
	}
	return a.Follow(filter)
}

// DeleteEntries deletes what filter matches, never established
// connections, one write at a time with the tuning's (a cut session
// finishes it before the agent ends).
func (a *Control) DeleteEntries(filter entry.Filter) (entry.Deletion, error) {
	if a.Deleter == nil {
		return entry.Deletion{}, errNoEntries
	}
	a.busy.Lock()
	defer a.busy.Unlock()
	return a.Deleter(filter, false)
}

// ErrRefusedHere reports a change the agent refuses on its own, whatever
// the request said: a cap below the live count, or a table over the
// memory rule.
var ErrRefusedHere = errors.New("refused on the agent")

// limit checks changes against the agent's own reading of the host: the
// live count (a cap below it refuses every new entry) and the memory a
// table of those values would take (over tuning.MemRefusePct of RAM). It
// returns the count the tuner is to keep: the request's or the live one,
// whichever is higher.
func (a *Control) limit(changes []tuning.Change, count uint64) (uint64, error) {
	if a.CountNow != nil {
		live, err := a.CountNow()
		if err != nil {
			return 0, fmt.Errorf("%w: the live count cannot be read: %w", ErrRefusedHere, err)
		}
		count = max(count, live)
	}
	for _, c := range changes {
		if c.Key != knob.Max {
			continue
		}
		if n, err := strconv.ParseUint(c.Proposed, 10, 64); err == nil && n < count {
			return 0, fmt.Errorf("%w: %s = %s is below the live count %s: the table would refuse every new entry", ErrRefusedHere, c.Key, c.Proposed, units.Int(count))
		}
	}
	if a.MemTotal > 0 {
		knobs, err := a.Tuner.Read()
		if err != nil {
			return 0, fmt.Errorf("%w: the knobs cannot be read: %w", ErrRefusedHere, err)
		}
		if cost := tuning.CostOf(knobs.Current, changes, knobs.EntryBytes, a.MemTotal); cost.Level() == verdict.SevCrit {
			return 0, fmt.Errorf("%w: the table would take %.0f %% of RAM (over %.0f %%)", ErrRefusedHere, cost.PctOfRAM, tuning.MemRefusePct)
		}
	}
	return count, nil
}

// SetInterval implements agent.Controller.
func (a *Control) SetInterval(d time.Duration) { a.Live.SetInterval(d) }

// SetCensus implements agent.Controller.
func (a *Control) SetCensus(on bool) { a.Live.SetCensus(on) }

// Read implements tuning.Tuner.
func (a *Control) Read() (tuning.KnobState, error) { return a.Tuner.Read() }

// Apply implements tuning.Tuner.
func (a *Control) Apply(changes []tuning.Change, count uint64) ([]knob.Result, error) {
	a.busy.Lock()
	defer a.busy.Unlock()
	count, err := a.limit(changes, count)
	if err != nil {
		return nil, err
	}
	return a.Tuner.Apply(changes, count)
}

// Persist implements tuning.Tuner.
func (a *Control) Persist(changes []tuning.Change) ([]string, []string, error) {
	a.busy.Lock()
	defer a.busy.Unlock()
	if _, err := a.limit(changes, 0); err != nil { // what survives a reboot is held to the same rules
		return nil, nil, err
	}
	return a.Tuner.Persist(changes)
}

// Undo implements tuning.Tuner.
func (a *Control) Undo() ([]knob.Result, error) {
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
