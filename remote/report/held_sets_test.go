package report

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/remote/recording/recordingtest"
)

// TestVerdictTimesFitTheRecording: over every recording we have, the
// report's verdict times add up to no more than the recording (and one
// interval, the first sample's), verdicts that held at once are said
// together, and no kind is said twice in one set (dns.jsonl read "TABLE
// FULL for 20 s, EARLY DROP for 20 s, OK for 5 s" of 25 s).
func TestVerdictTimesFitTheRecording(t *testing.T) {
	for _, path := range recordingtest.Incidents(t, "../..") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := buildFile(t, path, Options{})
			in := r.Incident
			var sum time.Duration
			for _, hs := range in.HeldSets() {
				sum += hs.For
				seen := map[string]bool{}
				for _, k := range hs.Kinds {
					if seen[string(k)] {
						t.Errorf("%s said twice in one set %v", k, hs.Kinds)
					}
					seen[string(k)] = true
				}
			}
			if span := in.To.Sub(in.From) + in.Interval; sum+in.OtherHeld > span {
				t.Errorf("verdicts held %s in all, over the recording's %s", sum+in.OtherHeld, span)
			}
			sets := len(in.HeldSets())
			if in.OtherHeld > 0 {
				sets++
			}
			if line := lineWith(string(r.Markdown()), "Verdicts: "); strings.Count(line, " for ") != sets {
				t.Errorf("the verdicts line %q says other than the %d sets that held", line, sets)
			}
		})
	}
}
