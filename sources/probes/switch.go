package probes

import (
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/owners"
)

// Why a sample carries no probe counts.
const (
	NoteWhoOff = "probes load near the cap only; the table is far from it"
	NoteNoCap  = "eBPF refused (needs CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN): owners from the census's sockets only"
)

// Switch loads the eBPF probes by the fast-sampling rule (as events
// are counted: near the cap, lingering EventsLinger after) and unloads
// them when it no longer holds. A failed load is tried again after
// EventsRetry.
type Switch struct {
	// mu guards the fields below: read runs beside the sample (offPath),
	// set on the sampler's goroutine, which never waits for it.
	mu       sync.Mutex
	proc     string
	probes   *Programs
	wantAt   time.Time
	failedAt time.Time
	note     string
	// load is Load for this process's namespace; tests refuse it.
	load func(proc string) (*Programs, error)
}

// NewSwitch loads probes for the namespace of the processes under
// proc: the real /proc only (on a fixture's root they would count this
// host's kernel).
func NewSwitch(proc string) *Switch {
	if !owners.KernelRoot(proc) {
		return &Switch{}
	}
	return &Switch{proc: proc, load: func(proc string) (*Programs, error) {
		return Load(proc, filepath.Join(proc, "self", "ns", "net"))
	}}
}

// Set is called after each sample with whether the rule holds.
func (s *Switch) Set(now time.Time, want bool) {
	if s.load == nil || !s.mu.TryLock() { // a read under way: the next sample sets it
		return
	}
	defer s.mu.Unlock()
	if want {
		s.wantAt = now
	}
	on := !s.wantAt.IsZero() && now.Sub(s.wantAt) <= ctnetlink.EventsLinger
	switch {
	case on && s.probes == nil:
		if !s.failedAt.IsZero() && now.Sub(s.failedAt) < ctnetlink.EventsRetry {
			return
		}
		p, err := s.load(s.proc)
		if err != nil {
			s.failedAt, s.note = now, "owners not counted live: "+err.Error()
			if errors.Is(err, kernelfs.ErrPermission) {
				s.note = NoteNoCap
			}
			return
		}
		s.probes, s.failedAt, s.note = p, time.Time{}, ""
	case !on && s.probes != nil:
		s.unload()
	}
}

// Stop unloads the probes, once a read under way is done.
func (s *Switch) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unload()
}

// unload unloads the probes; the caller holds mu.
func (s *Switch) unload() {
	if s.probes != nil {
		s.probes.Close()
		s.probes = nil
	}
}

// Read is the sample's Who: the probes' counts while loaded, otherwise
// why not (nil when a live feed never asked for them).
func (s *Switch) Read() *model.Who {
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
