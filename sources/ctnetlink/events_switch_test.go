package ctnetlink

import (
	"testing"
	"time"
)

// TestEventsSwitchSaysWhyOff: a switch that never subscribed says why —
// far from the cap in a live feed, between samples in a one-shot — and
// says so for a table that tracks nothing as well, so that no reader
// takes it for counting that failed (the exporter's up for entries read
// 0 on an idle host, whose table tracks nothing).
func TestEventsSwitchSaysWhyOff(t *testing.T) {
	sw := NewEventsSwitch(NewEntryEvents(t.TempDir()))
	if e := sw.Read(); !e.OffByDesign() || e.Note != NoteEventsOneShot {
		t.Errorf("one-shot: %+v, want off by design between samples", e)
	}
	sw.Set(time.Unix(100, 0), false)
	if e := sw.Read(); !e.OffByDesign() || e.Note != NoteEventsOff {
		t.Errorf("live, far from the cap or tracking nothing: %+v, want off by design", e)
	}
}
