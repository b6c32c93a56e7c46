package ctnetlink

import (
	"os"
	"path/filepath"
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

// TestDestroyHasTimeoutByKernel: the evictions are counted only where the
// kernel's DESTROY events carry the time left, since 5.11.
func TestDestroyHasTimeoutByKernel(t *testing.T) {
	for release, want := range map[string]bool{"5.10.0-28-amd64\n": false, "5.11.0\n": true, "6.1.0-41-amd64\n": true, "": false} {
		proc := t.TempDir()
		if release != "" {
			os.MkdirAll(filepath.Join(proc, "sys", "kernel"), 0o755)
			os.WriteFile(filepath.Join(proc, "sys", "kernel", "osrelease"), []byte(release), 0o644)
		}
		if got := NewEntryEvents(proc).destroyHasTimeout(); got != want {
			t.Errorf("kernel %q: evictions counted %v, want %v", release, got, want)
		}
	}
}
