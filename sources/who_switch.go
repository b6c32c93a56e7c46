package sources

import (
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Why a sample carries no probe counts.
const (
	NoteWhoOff   = "probes load near the cap only; the table is far from it"
	NoteWhoNoCap = "eBPF refused (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN): owners from the census's sockets only"
)

// whoSwitch loads the eBPF probes by the fast-sampling rule (as events
// are counted: near the cap, lingering EventsLinger after) and unloads
// them when it no longer holds. A failed load is tried again after
// eventsRetry.
type whoSwitch struct {
	// mu guards the fields below: read runs beside the sample (aside),
	// set on the sampler's goroutine, which never waits for it.
	mu       sync.Mutex
	proc     string
	probes   *WhoProbes
	wantAt   time.Time
	failedAt time.Time
	note     string
	// load is LoadWho for this process's namespace; tests refuse it.
	load func(proc string) (*WhoProbes, error)
}

// newWhoSwitch loads probes for the namespace of the processes under
// proc: the real /proc only (on a fixture's root they would count this
// host's kernel).
func newWhoSwitch(proc string) whoSwitch {
	if !kernelRoot(proc) {
		return whoSwitch{}
	}
	return whoSwitch{proc: proc, load: func(proc string) (*WhoProbes, error) {
		return LoadWho(proc, filepath.Join(proc, "self", "ns", "net"))
	}}
}

// set is called after each sample with whether the rule holds.
func (s *whoSwitch) set(now time.Time, want bool) {
	if s.load == nil || !s.mu.TryLock() { // a read under way: the next sample sets it
		return
	}
	defer s.mu.Unlock()
	if want {
		s.wantAt = now
	}
	on := !s.wantAt.IsZero() && now.Sub(s.wantAt) <= EventsLinger
	switch {
	case on && s.probes == nil:
		if !s.failedAt.IsZero() && now.Sub(s.failedAt) < eventsRetry {
			return
		}
		p, err := s.load(s.proc)
		if err != nil {
			s.failedAt, s.note = now, "owners not counted live: "+err.Error()
			if errors.Is(err, ErrPermission) {
				s.note = NoteWhoNoCap
			}
			return
		}
		s.probes, s.failedAt, s.note = p, time.Time{}, ""
	case !on && s.probes != nil:
		s.unload()
	}
}

// stop unloads the probes, once a read under way is done.
func (s *whoSwitch) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unload()
}

// unload unloads the probes; the caller holds mu.
func (s *whoSwitch) unload() {
	if s.probes != nil {
		s.probes.Close()
		s.probes = nil
	}
}

// read is the sample's Who: the probes' counts while loaded, otherwise
// why not (nil when a live feed never asked for them).
func (s *whoSwitch) read() *model.Who {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.probes != nil:
		return s.probes.Read()
	case s.note != "":
		return &model.Who{Note: s.note}
	case !s.wantAt.IsZero():
		return &model.Who{Note: NoteWhoOff}
	}
	return nil
}
