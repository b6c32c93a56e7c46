package chart

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/styles"
)

// framesOf makes frames at the given offsets from scriptStart with the
// given peaks.
func framesOf(offsets []time.Duration, peaks []uint64) []diagnose.Frame {
	var out []diagnose.Frame
	for i, off := range offsets {
		out = append(out, diagnose.Frame{Sample: model.Sample{Time: scriptStart.Add(off),
			Conntrack: model.Conntrack{Peak: peaks[i], Max: 4096}}})
	}
	return out
}

func TestPeakRows(t *testing.T) {
	identity := func(v float64) int { return int(v) }
	cols := plotColumns{left: 5, last: 4, from: float64(scriptStart.Unix()), span: 4}
	sec := time.Second
	tests := []struct {
		name    string
		offsets []time.Duration
		peaks   []uint64
		want    []int
	}{
		{"one frame per column", []time.Duration{0, sec, 2 * sec, 3 * sec, 4 * sec}, []uint64{1, 2, 3, 4, 5}, []int{1, 2, 3, 4, 5}},
		{"a burst in a quarter second is the column's value",
			[]time.Duration{0, 250 * time.Millisecond, 1250 * time.Millisecond, 2 * sec, 3 * sec, 4 * sec},
			[]uint64{100, 90, 4096, 120, 110, 130}, []int{100, 4096, 120, 110, 130}},
		{"columns between frames get the line between them", []time.Duration{0, 4 * sec}, []uint64{0, 40}, []int{0, 10, 20, 30, 40}},
		{"before the first and after the last frame, level", []time.Duration{sec, 2 * sec}, []uint64{7, 9}, []int{7, 7, 9, 9, 9}},
		{"no frames, the floor", nil, nil, []int{0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := peakRows(framesOf(tt.offsets, tt.peaks), cols, identity)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlotColumnsAt(t *testing.T) {
	cols := plotColumns{last: 100, from: 1000, span: 50}
	for _, tt := range []struct {
		secs float64
		want int
	}{{1000, 0}, {1025, 50}, {1050, 100}, {990, 0}, {1060, 100}, {1000.26, 1}} {
		at := time.Unix(0, int64(tt.secs*1e9))
		if got := cols.at(at); got != tt.want {
			t.Errorf("at(%v) = %d, want %d", tt.secs, got, tt.want)
		}
	}
	if got := (plotColumns{last: 9}).at(time.Now()); got != 9 {
		t.Errorf("an empty span puts everything on the right edge, got %d", got)
	}
}

// TestChartBurstReachesCap: one interval at the cap between quiet ones
// is drawn up to the cap line's row, not averaged down with its
// neighbours (ntcharts' Draw drew it about a quarter lower).
func TestChartBurstReachesCap(t *testing.T) {
	var offsets []time.Duration
	var peaks []uint64
	for i := range 60 {
		offsets = append(offsets, time.Duration(i)*time.Second)
		peaks = append(peaks, 1100)
	}
	peaks[30] = 4096
	var c Chart
	c.Rebuild(styles.DefaultStyles(), framesOf(offsets, peaks), 80, 18, time.Time{})
	cols := columnsOf(c.ts)
	x := cols.left + cols.at(scriptStart.Add(30*time.Second))
	capRow := rowScale(c.ts)(4096)
	runeAt := func(y int) rune { return c.ts.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune }
	for y := range capRow {
		if r := runeAt(y); r != 0 {
			t.Errorf("row %d above the cap has %q in the burst's column", y, r)
		}
	}
	if r := runeAt(capRow); r == 0 || r == '─' {
		t.Errorf("the burst's column has %q on the cap's row %d: the line does not reach the cap:\n%s", r, capRow, ansi.Strip(c.view))
	}
	if r := runeAt(capRow + 1); r != '│' {
		t.Errorf("the burst's column has %q under the cap, want the line's │:\n%s", r, ansi.Strip(c.view))
	}
}

// TestChartNamesEveryCap: a cap raised twice above the count's scale
// (400 → 32,768 → 65,536) is named at each raise, the newest too; the
// first name does not keep the row to itself.
func TestChartNamesEveryCap(t *testing.T) {
	var frames []diagnose.Frame
	for i := range 60 {
		capAt := uint64(400)
		switch {
		case i >= 40:
			capAt = 65536
		case i >= 20:
			capAt = 32768
		}
		frames = append(frames, diagnose.Frame{Sample: model.Sample{Time: scriptStart.Add(time.Duration(i) * time.Second),
			Conntrack: model.Conntrack{Peak: 400 + uint64(i)*10, Max: capAt}}})
	}
	for _, w := range []int{80, 200} {
		var c Chart
		c.Rebuild(styles.DefaultStyles(), frames, w, 18, time.Time{})
		view := ansi.Strip(c.view)
		for _, want := range []string{"max 32,768", "max 65,536"} {
			if !strings.Contains(view, want) {
				t.Errorf("%d columns: the chart does not name %q:\n%s", w, want, view)
			}
		}
	}
}

// TestValueAxisReadsInEvenSteps: for every height and top a chart may
// have, the labels the axis prints (every yLabelEvery rows, as ntcharts
// places them) step evenly, with no value skipped where a label rounds
// (at 200×50 they read 10, 9, 7, 6, 4, 3 before), and the scale still
// holds the top.
func TestValueAxisReadsInEvenSteps(t *testing.T) {
	parse := func(s string) float64 {
		mult := 1.0
		switch {
		case strings.HasSuffix(s, "k"):
			s, mult = strings.TrimSuffix(s, "k"), 1e3
		case strings.HasSuffix(s, "M"):
			s, mult = strings.TrimSuffix(s, "M"), 1e6
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("label %q", s)
		}
		return v * mult
	}
	for rows := 4; rows <= 48; rows++ {
		for _, top := range []float64{10, 13, 37, 99.5, 287, 455, 1002, 4096 * 1.05, 9001, 31000, 262144 * 1.05, 3.3e6} {
			scale := roundScale(top, rows, yLabelEvery)
			if scale < top {
				t.Fatalf("%d rows, top %v: scale %v below it", rows, top, scale)
			}
			var labels []float64
			for i := 0; i <= rows; i += yLabelEvery {
				labels = append(labels, parse(compact(float64(i)*scale/float64(rows))))
			}
			for i := 2; i < len(labels); i++ {
				if d0, d1 := labels[1]-labels[0], labels[i]-labels[i-1]; math.Abs(d1-d0) > d0*0.01 {
					t.Errorf("%d rows, top %v (scale %v): labels %v do not step evenly", rows, top, scale, labels)
					break
				}
			}
		}
	}
}
