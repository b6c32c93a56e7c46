package sources

import (
	"fmt"
	"sync"
	"time"
)

// Budgets of the attribution a sample carries beside its counts (who
// holds the entries, pressed listeners, probes, other namespaces, drift):
// what a local user can slow down never holds the count back.
const (
	// AttributionBudget is how long a sample waits for an answer it
	// started; one still running after it is left to finish beside the
	// next samples, which carry the last answer and say it is late.
	AttributionBudget = 500 * time.Millisecond
	// FirstAnswerBudget is how long the first answer is waited for (a
	// one-shot snapshot has no earlier answer to show).
	FirstAnswerBudget = 5 * time.Second
)

// offPath runs one kind of attribution off the sampling path: at most one
// run at a time, started by a sample when none is under way; the sample
// waits for the run it started up to its budget, and for one started
// earlier not at all.
type offPath[T any] struct {
	mu      sync.Mutex
	running bool
	started time.Time
	done    chan struct{}
	last    T
	have    bool
}

// start begins run unless a run is under way; it reports whether it did.
func (a *offPath[T]) start(run func() T) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return false
	}
	a.running, a.started = true, time.Now()
	done := make(chan struct{})
	a.done = done
	go func() {
		v := run()
		a.mu.Lock()
		a.last, a.have, a.running = v, true, false
		a.mu.Unlock()
		close(done)
	}()
	return true
}

// take is the newest answer: the run this sample started (waited for
// until its budget from started, FirstAnswerBudget while there has never
// been one), or the last one finished. late is how long the run under
// way has taken when it is past its budget (0 otherwise).
func (a *offPath[T]) take(startedHere bool) (v T, late time.Duration) {
	a.mu.Lock()
	done, started, have := a.done, a.started, a.have
	a.mu.Unlock()
	if startedHere || !have {
		budget := AttributionBudget
		if !have {
			budget = FirstAnswerBudget
		}
		select {
		case <-done:
		case <-time.After(time.Until(started.Add(budget))):
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		if took := time.Since(a.started); took > AttributionBudget {
			late = took
		}
	}
	return a.last, late
}

// wait returns once no run is under way (Close).
func (a *offPath[T]) wait() {
	a.mu.Lock()
	done, running := a.done, a.running
	a.mu.Unlock()
	if running {
		<-done
	}
}

// lateNote says that an attribution is running past its budget and the
// sample shows its last answer.
func lateNote(what string, late time.Duration) string {
	return fmt.Sprintf("%s over budget: running for %s (budget %s), the last answer is shown", what, late.Round(100*time.Millisecond), AttributionBudget)
}
