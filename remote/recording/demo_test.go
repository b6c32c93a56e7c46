package recording_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/recording"
)

// TestDemoRecordingIsAnIncident: the embedded recording holds what the
// demo promises: a table that pins, drops, and the fix.
func TestDemoRecordingIsAnIncident(t *testing.T) {
	rec, err := recording.ReadRecording(bytes.NewReader(recording.DemoRecording))
	if err != nil {
		t.Fatal(err)
	}
	an := diagnose.NewAnalyzer(len(rec.Samples))
	var full, fixed bool
	var prev diagnose.Frame
	for i, s := range rec.Samples {
		f := an.Add(s)
		full = full || f.Verdict().Kind == verdict.TableFull
		if i > 0 && f.Sample.Conntrack.Max > prev.Sample.Conntrack.Max {
			fixed = true
		}
		prev = f
	}
	if !full || !fixed || len(an.Episodes()) == 0 {
		t.Errorf("demo: TABLE FULL %v, max raised %v, %d episodes", full, fixed, len(an.Episodes()))
	}
}

// TestDemoReadsTrue: the demo's frames agree with their own numbers. In
// the climb to the pin the rate of new entries is the count's slope (a loopback
// connection is one entry, not an active and a passive open); an
// interval that dropped never reads "no drops"; SYN retransmits that
// follow this table's drops are not a network beyond the host.
func TestDemoReadsTrue(t *testing.T) {
	rec, err := recording.ReadRecording(bytes.NewReader(recording.DemoRecording))
	if err != nil {
		t.Fatal(err)
	}
	an := diagnose.NewAnalyzer(len(rec.Samples))
	var prev diagnose.Frame
	var lastDrop time.Time
	climbs := 0
	for i, s := range rec.Samples {
		f := an.Add(s)
		c, p := f.Sample.Conntrack, prev.Sample.Conntrack
		if i > 0 && len(an.Episodes()) == 0 && c.Count > p.Count+40 && c.Count < c.Max { // the climb to the first pin
			climbs++
			slope := float64(c.Count-p.Count) / f.Rates.Elapsed.Seconds()
			if rate := f.Rates.NewEntriesPS(); math.Abs(rate-slope) > 0.1*slope {
				t.Errorf("%s: %.0f new/s while the count rose %.0f/s", s.Time.Format("15:04:05"), rate, slope)
			}
		}
		if f.Rates.Drops() > 0 {
			lastDrop = s.Time
			if strings.Contains(f.Verdict().Text(), "no drops") {
				t.Errorf("%s: %d drops, yet %q", s.Time.Format("15:04:05"), f.Rates.Drops(), f.Verdict())
			}
		}
		for _, v := range f.Verdicts {
			if v.Kind == verdict.ClientStalled && !lastDrop.IsZero() && s.Time.Sub(lastDrop) <= diagnose.RetransLadder {
				t.Errorf("%s: %s %s after this table dropped", s.Time.Format("15:04:05"), v.Kind, s.Time.Sub(lastDrop))
			}
		}
		prev = f
	}
	if climbs == 0 {
		t.Error("the demo has no climb to check")
	}
}
