package ctnetlink

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestEventsSwitchSaysWhyOff: a switch that never subscribed says why —
// far from the cap in a live feed, between samples in a one-shot — and
// says so for a table that tracks nothing as well, so that no reader
// takes it for counting that failed (the exporter's up for entries read
// 0 on an idle host, whose table tracks nothing).
func TestEventsSwitchSaysWhyOff(t *testing.T) {
	sw := NewEventsSwitch(NewEntryEvents(t.TempDir()))
	if e := sw.Read(model.TableTracked); !e.OffByDesign() || e.Note != NoteEventsOneShot {
		t.Errorf("one-shot: %+v, want off by design between samples", e)
	}
	sw.Set(time.Unix(100, 0), false)
	for _, st := range []model.TableStatus{model.TableTracked, model.TableUntracked} {
		if e := sw.Read(st); !e.OffByDesign() || e.Note != NoteEventsOff {
			t.Errorf("live, %s and far from the cap: %+v, want off by design", st, e)
		}
	}
	if e := sw.Read(model.TableNoModule); e.Note != "" {
		t.Errorf("no table at all: %+v, want nothing said of entries", e)
	}
}
