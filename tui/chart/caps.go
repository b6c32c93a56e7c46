package chart

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// capRun is a stretch of frames under one nf_conntrack_max: the cap as it
// was, from the frame it was first read at to the one after its last.
type capRun struct {
	from, to time.Time
	v        float64
	// peak is the highest count read under it: a cap the count came
	// near is drawn, one far above it is only named.
	peak float64
}

// capRunsOf is the caps of frames in order, a run for each value of
// nf_conntrack_max (0, a table not read, is no cap).
func capRunsOf(frames []diagnose.Frame) []capRun {
	var runs []capRun
	for _, f := range frames {
		c := f.Sample.Conntrack
		v, t := float64(c.Max), f.Sample.Time
		if v == 0 {
			continue
		}
		n := len(runs)
		if n > 0 && runs[n-1].v == v {
			runs[n-1].to, runs[n-1].peak = t, max(runs[n-1].peak, float64(c.Peak))
			continue
		}
		if n > 0 {
			runs[n-1].to = t // a cap holds until the frame that read the next
		}
		runs = append(runs, capRun{from: t, to: t, v: v, peak: float64(c.Peak)})
	}
	return runs
}

// near reports whether the count came within a quarter of r's cap: the
// cap is then on the chart's scale.
func (r capRun) near() bool { return r.peak >= r.v/4 }

// yScale is the chart's top: the highest cap the count came near with a
// little room, or, when the count rose above every such cap (after a
// raise), its peak with some room.
func yScale(frames []diagnose.Frame, runs []capRun) float64 {
	var peakMax, capMax float64
	for _, f := range frames {
		peakMax = max(peakMax, float64(f.Sample.Conntrack.Peak))
	}
	for _, r := range runs {
		if r.near() {
			capMax = max(capMax, r.v)
		}
	}
	if capMax > 0 && peakMax <= capMax {
		return capMax * 1.05
	}
	return max(10, peakMax*1.3, capMax*1.05)
}

// yLabelEvery is how many rows apart the value axis is labelled.
const yLabelEvery = 2

// roundScale raises top so that the value axis, labelled every `every`
// of its rows, reads in even steps: the labels of a scale whose step is
// not round print uneven numbers ("9, 8, 6, 5, 4"), a step skipped where
// it rounds. A step is 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10ⁿ, the least
// that holds top and that the labels print exactly (compact: whole below
// a thousand, hundreds as "1.5k", thousands as "25k", hundred thousands
// as "1.5M"), so the cap is not pushed far below the top.
func roundScale(top float64, rows, every int) float64 {
	if rows <= 0 || every <= 0 || top <= 0 {
		return top
	}
	labels := float64(rows) / float64(every) // ntcharts labels rows 0, every, 2·every, … of rows
	raw := top / labels
	for p := math.Pow(10, math.Floor(math.Log10(raw))); ; p *= 10 {
		for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8} {
			step := m * p
			if step < raw {
				continue
			}
			if printsExactly(step, step*labels) {
				return step * labels
			}
		}
	}
}

// printsExactly reports whether compact prints every multiple of step
// up to scale exactly.
func printsExactly(step, scale float64) bool {
	unit := 1.0
	switch {
	case scale >= 1e6:
		unit = 1e5
	case scale >= 1e4:
		unit = 1e3
	case scale >= 1e3:
		unit = 1e2
	}
	q := step / unit
	return q >= 1 && math.Abs(q-math.Round(q)) < 1e-9
}

// drawCaps draws each cap the count came near as a line over its own
// stretch, labelled on the Y axis, and names each cap above the scale at
// the top of its stretch ("↑ max 16,384"). The rows above the highest
// drawn cap carry no number: the count never passes the cap. It returns
// the rows it drew on.
func drawCaps(st *styles.Styles, ts *timeserieslinechart.Model, runs []capRun, cols plotColumns, rowOf func(float64) int) []int {
	var rows []int
	top, topV, peak := -1, 0.0, 0.0
	w, origin := ts.Origin().X, ts.Origin().Y
	var named []capRun // above the scale, or too low to tell from 0 at this height
	for _, r := range runs {
		peak = max(peak, r.peak)
		row := rowOf(r.v)
		if !r.near() || row >= origin {
			named = append(named, r)
			continue
		}
		from, to := float64(r.from.UnixNano())/1e9, float64(r.to.UnixNano())/1e9
		ts.DrawLineWithStyle(canvas.Float64Point{X: max(from, ts.ViewMinX()), Y: r.v},
			canvas.Float64Point{X: min(to, ts.ViewMaxX()), Y: r.v}, runes.ThinLineStyle, st.ChartCap)
		if w > 0 {
			ts.Canvas.SetStringWithStyle(canvas.Point{X: 0, Y: row}, fmt.Sprintf("%*s", w, capLabel(r.v, w)), st.ChartCap)
		}
		if top < 0 || row < top {
			top, topV = row, r.v
		}
		rows = append(rows, row)
	}
	rows = nameCaps(st, ts, named, rows, cols, origin)
	if top >= 0 && peak <= topV { // the count never passed the cap: no number above it
		for y := 0; y < top && w > 0; y++ {
			ts.Canvas.SetStringWithStyle(canvas.Point{X: 0, Y: y}, fmt.Sprintf("%*s", w, ""), st.ChartLabels)
		}
	}
	return rows
}

// nameCaps names the caps not drawn as lines ("↑ max 16,384") on the
// highest row no cap line is drawn on, newest first: each at its
// stretch's column, or moved left to end before the name after it; an
// older name with no room left is dropped. It returns rows with the
// name row added when a name was written.
func nameCaps(st *styles.Styles, ts *timeserieslinechart.Model, named []capRun, rows []int, cols plotColumns, origin int) []int {
	nameRow := 0
	for slices.Contains(rows, nameRow) && nameRow+1 < origin {
		nameRow++
	}
	if slices.Contains(rows, nameRow) {
		return rows
	}
	limit, placed := cols.left+cols.last, false // the columns right of limit are taken
	for i := len(named) - 1; i >= 0; i-- {
		r := named[i]
		label := "max " + units.Int(uint64(r.v))
		if !r.near() {
			label = "↑ " + label
		}
		n := len([]rune(label))
		x := min(cols.left+1+cols.at(r.from), limit-n)
		if x < cols.left+1 {
			continue
		}
		ts.Canvas.SetStringWithStyle(canvas.Point{X: x, Y: nameRow}, label, st.ChartCap)
		limit, placed = x-1, true
	}
	if placed {
		rows = append(rows, nameRow)
	}
	return rows
}

// changeColumns are the columns where nf_conntrack_max changed between
// two frames (a fix, from any console or none), and mark's column when
// it is set and in view (an apply from this console): the strip's ▲.
func changeColumns(runs []capRun, cols plotColumns, mark, first, end time.Time) map[int]bool {
	at := map[int]bool{}
	for i := 1; i < len(runs); i++ {
		at[cols.at(runs[i].from)] = true
	}
	if !mark.IsZero() && !mark.Before(first) && !mark.After(end) {
		at[cols.at(mark)] = true
	}
	return at
}
