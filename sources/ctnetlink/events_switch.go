package ctnetlink

import (
	"errors"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Why a sample carries no event counts.
const (
	NoteEventsOff     = model.EntriesFarFromCap
	NoteEventsNoCap   = "need CAP_NET_ADMIN (ctnetlink events); TCP opens only"
	NoteEventsOneShot = model.EntriesOneShot
)

// EventsLinger is how long events stay subscribed after the rule that
// asked for them last held: an incident that pauses is still counted.
const EventsLinger = time.Minute

// EventsRetry is how long a failed subscription waits before it is tried
// again.
const EventsRetry = time.Minute

// EventsSwitch turns the event counter on and off by the fast-sampling
// rule, and says why it is off.
type EventsSwitch struct {
	ev       *EntryEvents
	wantAt   time.Time // when the rule last held
	failedAt time.Time
	note     string
	// ran reports that a live feed drives it (a one-shot sample never
	// subscribes).
	ran bool
}

// Set is called after each sample with whether the rule holds.
func (s *EventsSwitch) Set(now time.Time, want bool) {
	s.ran = true
	if want {
		s.wantAt = now
	}
	on := !s.wantAt.IsZero() && now.Sub(s.wantAt) <= EventsLinger
	switch {
	case on && !s.ev.On():
		if !s.failedAt.IsZero() && now.Sub(s.failedAt) < EventsRetry {
			return
		}
		if err := s.ev.Start(); err != nil {
			s.failedAt = now
			s.note = "new entries not counted: " + err.Error()
			if errors.Is(err, kernelfs.ErrPermission) {
				s.note = NoteEventsNoCap
			}
			return
		}
		s.failedAt, s.note = time.Time{}, ""
	case !on && s.ev.On():
		s.ev.Stop()
	}
}

// Read is the sample's Entries: the counts while subscribed, otherwise
// why not; nothing where there is no table to count (no module, or
// unreadable). A table that tracks nothing is as far from its cap as a
// table can be: off by design, like any other far from it, not a count
// that failed (the exporter read tablefull_up{part="entries"} 0 on an
// idle host).
func (s *EventsSwitch) Read(status model.TableStatus) model.Entries {
	switch {
	case s.ev.On():
		return s.ev.Read()
	case s.note != "":
		return model.Entries{Note: s.note}
	case status != model.TableTracked && status != model.TableUntracked:
		return model.Entries{}
	case !s.ran:
		return model.Entries{Note: NoteEventsOneShot}
	}
	return model.Entries{Note: NoteEventsOff}
}

// NewEventsSwitch switches ev's subscription by the fast-sampling rule.
func NewEventsSwitch(ev *EntryEvents) EventsSwitch { return EventsSwitch{ev: ev} }

// On reports whether the events are subscribed now.
func (s *EventsSwitch) On() bool { return s.ev.On() }

// Stop unsubscribes for good.
func (s *EventsSwitch) Stop() { s.ev.Stop() }
