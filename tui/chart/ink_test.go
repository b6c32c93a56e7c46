package chart

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/styles"
)

// randomFrames are n frames one second apart whose peaks jump anywhere
// between 0 and 1.2 × a cap of capV (so lines cross the cap and run up
// and down the whole height), some pinned, some after a gap.
func randomFrames(r *rand.Rand, n int, capV uint64) []diagnose.Frame {
	out := make([]diagnose.Frame, n)
	for i := range out {
		peak := uint64(r.IntN(int(capV*6/5) + 1))
		if r.IntN(4) == 0 {
			peak = capV
		}
		out[i] = diagnose.Frame{Sample: model.Sample{Time: scriptStart.Add(time.Duration(i) * time.Second),
			Conntrack: model.Conntrack{Peak: peak, Max: capV}},
			Pinned: peak >= capV, Gap: i > 0 && r.IntN(10) == 0}
	}
	return out
}

// chartCases are charts of every shape the console draws: an incident,
// a quiet table (no cap line), a low cap, wild random lines, one frame,
// at sizes from the smallest pane to a wide one.
func chartCases() []struct {
	name          string
	frames        []diagnose.Frame
	width, height int
} {
	r := rand.New(rand.NewPCG(7, 11))
	type chartCase = struct {
		name          string
		frames        []diagnose.Frame
		width, height int
	}
	cases := []chartCase{
		{"incident 200×17", incidentFrames(300, 191), 200, 17},
		{"incident 80×6", incidentFrames(300, 71), 80, 6},
		{"quiet", framesOf([]time.Duration{0, time.Second, 2 * time.Second}, []uint64{3, 5, 4}), 60, 8},
		{"one frame", framesOf([]time.Duration{0}, []uint64{4096}), 40, 5},
	}
	for i := range 12 {
		w, h := 20+r.IntN(180), 3+r.IntN(20)
		capV := []uint64{10, 4096, 262144, 3_000_000}[i%4]
		cases = append(cases, chartCase{fmt.Sprintf("random %d %d×%d cap %d", i, w, h, capV),
			randomFrames(r, 1+r.IntN(2*w), capV), w, h})
	}
	return cases
}

// TestChartInkCoversDrawing: every cell a rebuild draws on lies inside
// its ink mask, so the renderer, which reads only those, misses nothing.
func TestChartInkCoversDrawing(t *testing.T) {
	st := styles.DefaultStyles()
	for _, tc := range chartCases() {
		t.Run(tc.name, func(t *testing.T) {
			var c Chart
			c.Rebuild(st, tc.frames, tc.width, tc.height, time.Time{})
			if c.ts == nil {
				t.Fatal("no chart drawn")
			}
			inked, outside := 0, 0
			for y := range c.ts.Canvas.Height() {
				for x := range c.ts.Canvas.Width() {
					if c.ts.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune == 0 {
						continue
					}
					inked++
					if !c.ink.has(x, y) {
						outside++
						t.Errorf("cell %d,%d (%q) drawn outside the ink mask", x, y, c.ts.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune)
					}
				}
			}
			if inked == 0 {
				t.Error("nothing drawn")
			}
		})
	}
}

// TestChartRebuildLeavesNoStaleCells: a chart rebuilt over an earlier one
// (clearing only the earlier ink) is cell for cell the chart drawn on a
// fresh canvas, and renders the same.
func TestChartRebuildLeavesNoStaleCells(t *testing.T) {
	st := styles.DefaultStyles()
	cases := chartCases()
	for i, tc := range cases {
		before := cases[(i+1)%len(cases)].frames // other data, same size
		t.Run(tc.name, func(t *testing.T) {
			var reused, fresh Chart
			reused.Rebuild(st, before, tc.width, tc.height, time.Time{})
			reused.Rebuild(st, tc.frames, tc.width, tc.height, time.Time{})
			fresh.Rebuild(st, tc.frames, tc.width, tc.height, time.Time{})
			for y := range fresh.ts.Canvas.Height() {
				for x := range fresh.ts.Canvas.Width() {
					p := canvas.Point{X: x, Y: y}
					got, want := reused.ts.Canvas.Cell(p), fresh.ts.Canvas.Cell(p)
					if got.Rune != want.Rune || keyOf(&got.Style) != keyOf(&want.Style) {
						t.Fatalf("cell %d,%d: %q after an earlier chart, %q on a fresh one", x, y, got.Rune, want.Rune)
					}
				}
			}
			if reused.view != fresh.view {
				t.Errorf("views differ:\n%s\nwant\n%s", reused.view, fresh.view)
			}
		})
	}
}
