package exporter

import (
	"testing"
	"time"
)

// TestWindowDrops: the fleet score's drops are those of the window's
// intervals over their length, the frames older than the span left out,
// and not known (not 0) when no interval counted them.
func TestWindowDrops(t *testing.T) {
	t0 := time.Unix(1000, 0)
	w := window{span: 3 * time.Second}
	if _, ok := w.dropsPS(); ok {
		t.Error("an empty window knows its drops")
	}
	w.add(windowFrame{at: t0}) // the first sample: nothing counted
	if _, ok := w.dropsPS(); ok {
		t.Error("a window of one uncounted frame knows its drops")
	}
	for i, d := range []uint64{400, 10, 0, 20} {
		w.add(windowFrame{at: t0.Add(time.Duration(i+1) * time.Second), dropped: d, elapsed: time.Second})
	}
	// at 4 s the span reaches back to 1 s: that frame's 400 are out
	if got, ok := w.dropsPS(); !ok || got != 10 {
		t.Errorf("drops %.2f/s (known %v), want 10/s: 30 over the 3 s of the frames within the span", got, ok)
	}
}
