package report

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
)

// TestLinesBreakAtGaps: a gap in the stream ends a line, so the charts
// show it as a gap, not as a straight line across it.
func TestLinesBreakAtGaps(t *testing.T) {
	var tl model.Timeline
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 20 {
		at := t0.Add(time.Duration(i) * time.Second)
		gap := i == 10
		if i >= 10 {
			at = at.Add(time.Minute) // the stream was down for a minute
		}
		s := model.Sample{Time: at, Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: 5, Peak: 5, Max: 10}}
		tl.Add(model.Frame{Sample: s, Rates: model.Rates{Elapsed: time.Second}, Gap: gap})
	}
	segs := segments(tl.Buckets(), func(b model.Bucket) float64 { return float64(b.Peak) })
	if len(segs) != 2 || len(segs[0]) != 10 || len(segs[1]) != 10 {
		t.Errorf("got %d segments, want 2 of 10 points: one before the gap, one after", len(segs))
	}
	if sp := spans(tl.Buckets(), func(model.Bucket) bool { return true }); len(sp) != 2 {
		t.Errorf("shaded spans across a gap: got %d, want 2", len(sp))
	}
}
