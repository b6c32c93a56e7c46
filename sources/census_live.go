package sources

import (
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// censusRunner takes censuses in the background while enabled and hands
// the newest finished one to the next sample.
type censusRunner struct {
	mu sync.Mutex
	on bool
	// auto is on while entries are counted near the cap: what stands in
	// the table is then worth a walk (within CensusEvery).
	auto    bool
	running bool
	next    time.Time
	took    time.Duration
	ready   *model.Census
	dump    func() (model.Census, error)
}

func (r *censusRunner) set(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on && !r.on {
		r.next = time.Time{} // the first one right away
	}
	r.on = on
}

func (r *censusRunner) setAuto(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auto = on
}

// poll starts a census when one is due and returns a finished one.
func (r *censusRunner) poll(now time.Time) *model.Census {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.ready
	r.ready = nil
	if (r.on || r.auto) && !r.running && !now.Before(r.next) {
		r.running = true
		go r.run()
	}
	return out
}

func (r *censusRunner) run() {
	start := time.Now()
	c, err := r.dump()
	took := time.Since(start)
	c.At, c.Took = time.Now(), took
	if err != nil {
		c = model.Census{At: c.At, Error: err.Error()}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running, r.took, r.ready = false, took, &c
	r.next = time.Now().Add(model.CensusEvery(took))
	if err != nil {
		r.next = time.Now().Add(time.Minute) // it will not start working by itself
	}
}
