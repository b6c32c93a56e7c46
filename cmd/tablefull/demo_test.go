package main

import (
	"bytes"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
)

// TestDemoRecordingIsAnIncident: the embedded recording holds what the
// demo promises: a table that pins, drops, and the fix.
func TestDemoRecordingIsAnIncident(t *testing.T) {
	rec, err := remote.ReadRecording(bytes.NewReader(demoRecording))
	if err != nil {
		t.Fatal(err)
	}
	an := model.NewAnalyzer(len(rec.Samples))
	var full, fixed bool
	var prev model.Frame
	for i, s := range rec.Samples {
		f := an.Add(s)
		full = full || f.Verdict().Kind == model.TableFull
		if i > 0 && f.Sample.Conntrack.Max > prev.Sample.Conntrack.Max {
			fixed = true
		}
		prev = f
	}
	if !full || !fixed || len(an.Episodes()) == 0 {
		t.Errorf("demo: TABLE FULL %v, max raised %v, %d episodes", full, fixed, len(an.Episodes()))
	}
}

// TestDemoInTmux: a speaker runs it at 80×24; the captions and the pinned
// episode appear.
func TestDemoInTmux(t *testing.T) {
	s := startTmux(t, 80, 24, "", "demo", "--speed", "8")
	s.waitFor("REPLAY", "climbing")
	s.waitFor("Pinned at nf_conntrack_max")
	s.waitFor("episode", "TABLE FULL")
	s.waitFor("The fix: nf_conntrack_max raised")
	s.keys("q")
	s.waitFor("EXIT=0", "TERMINAL-RESTORED")
}
