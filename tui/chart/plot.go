package chart

import (
	"math"
	"time"

	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"

	"github.com/tablefull/tablefull/model/diagnose"
)

// plotColumns places moments on the chart's columns as ntcharts places
// its X labels: column left+i shows from + i·span/last, so the first
// moment sits on the Y axis and the last on the chart's right edge.
type plotColumns struct {
	left int     // canvas column of the Y axis
	last int     // offset of the right edge: the graph width
	from float64 // view start, Unix seconds
	span float64 // view length in seconds
}

// columnsOf reads the geometry of a chart whose view is already set.
func columnsOf(ts *timeserieslinechart.Model) plotColumns {
	return plotColumns{
		left: ts.Origin().X,
		last: ts.GraphWidth(),
		from: ts.ViewMinX(),
		span: ts.ViewMaxX() - ts.ViewMinX(),
	}
}

// count is how many columns moments can land on (the axis column and
// every graph column).
func (p plotColumns) count() int { return p.last + 1 }

// at is the column offset (0…last) where t is drawn.
func (p plotColumns) at(t time.Time) int {
	if p.span <= 0 {
		return p.last
	}
	secs := float64(t.UnixNano()) / 1e9
	x := math.Round((secs - p.from) * float64(p.last) / p.span)
	return int(min(float64(p.last), max(0, x)))
}

// peakRows is the line to draw: for each column, the canvas row of the
// highest peak among the frames drawn there, and for a column no frame
// lands on, the straight line between its neighbours. ntcharts' own Draw
// averages the points in a column, which draws a one-interval burst to
// the cap well below the cap: the very peak the 10 Hz sampler caught.
// rowOf maps a value to its canvas row.
func peakRows(frames []diagnose.Frame, cols plotColumns, rowOf func(float64) int) []int {
	n := cols.count()
	vals := make([]float64, n)
	has := make([]bool, n)
	for _, f := range frames {
		i, v := cols.at(f.Sample.Time), float64(f.Sample.Conntrack.Peak)
		if !has[i] || v > vals[i] {
			vals[i], has[i] = v, true
		}
	}
	prev := -1
	for i := range n {
		if !has[i] {
			continue
		}
		switch {
		case prev < 0: // before the first frame: level with it
			for j := range i {
				vals[j] = vals[i]
			}
		default:
			for j := prev + 1; j < i; j++ {
				vals[j] = vals[prev] + (vals[i]-vals[prev])*float64(j-prev)/float64(i-prev)
			}
		}
		prev = i
	}
	for j := prev + 1; prev >= 0 && j < n; j++ { // after the last frame
		vals[j] = vals[prev]
	}
	rows := make([]int, n)
	for i, v := range vals {
		rows[i] = rowOf(v)
	}
	return rows
}

// rowScale maps values onto the canvas rows of a chart with the Y view
// already set, as ntcharts scales its lines (the cap line among them):
// the view's bottom on the X axis, its top on the first row.
func rowScale(ts *timeserieslinechart.Model) func(float64) int {
	axis, h := ts.Origin().Y, float64(ts.GraphHeight())
	lo, span := ts.ViewMinY(), ts.ViewMaxY()-ts.ViewMinY()
	return func(v float64) int {
		if span <= 0 {
			return axis
		}
		y := int(math.Round((v - lo) * h / span))
		return axis - min(axis, max(0, y))
	}
}

// intervalColumns marks the columns (offsets 0…last) whose interval was
// pinned at the cap, and those where samples are missing because the
// stream was down. A pinned frame stands for the whole interval up to
// it, so it marks every column back to the previous frame's; across a
// gap only its own column is known.
func intervalColumns(frames []diagnose.Frame, cols plotColumns) (pinned, gaps []bool) {
	n := cols.count()
	pinned, gaps = make([]bool, n), make([]bool, n)
	prev := 0
	for i, f := range frames {
		c := cols.at(f.Sample.Time)
		if f.Gap && i > 0 {
			for j := min(c, prev+1); j < c; j++ {
				gaps[j] = true
			}
		}
		if f.Pinned {
			from := c
			if i > 0 && !f.Gap {
				from = min(c, prev+1)
			}
			for j := from; j <= c; j++ {
				pinned[j] = true
			}
		}
		prev = c
	}
	return pinned, gaps
}
