package chart

import (
	"fmt"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/styles"
)

// yAxisWidth is the room ntcharts takes for Y labels and the axis.
const yAxisWidth = 9

// Chart draws the table's count over time: the peak of each interval as
// a line, the cap as a line, pinned intervals shaded, and under it a
// strip marking them (for terminals without colour), the gaps in the
// stream and a mark. Rendering an ntcharts chart costs milliseconds, so
// it is built once per change of data or size and kept.
type Chart struct {
	view string
	key  string
	// ts is reused while the size stays the same: a new chart allocates
	// its whole canvas again.
	ts     *timeserieslinechart.Model
	w, h   int
	styles *styles.Styles
	// ink marks the cells the last rebuild drew on ts: the next one
	// clears only those (nil: the canvas is blank).
	ink *inkMask
	// runs keeps the escape sequences of the chart's styles, for styles.
	runs runStyles
}

// Columns is how many frames a chart width columns wide shows: one a
// column.
func Columns(width int) int { return max(1, width-yAxisWidth) }

// View is the chart as last rebuilt: "" when there was nothing to draw or
// no room.
func (c *Chart) View() string { return c.view }

// Rebuild draws frames (oldest first) into width × height, the last row
// the strip; mark, when set, is a moment to point at in the strip (a
// tuning apply). Nothing is redrawn when the frames, mark and size are
// those of the last rebuild.
func (c *Chart) Rebuild(st *styles.Styles, frames []diagnose.Frame, width, height int, mark time.Time) {
	if len(frames) == 0 || width < yAxisWidth+4 || height < 3 {
		c.view, c.key = "", ""
		return
	}
	last := frames[len(frames)-1]
	key := fmt.Sprintf("%d×%d %d %v %d %v", width, height, len(frames), last.Sample.Time.UnixNano(), frames[0].Sample.Time.UnixNano(), mark.UnixNano())
	if key == c.key {
		return
	}
	c.key = key
	runs := capRunsOf(frames)
	chartH := height - 1 // the strip
	first, end := timeRange(frames)
	c.ensure(st, width, chartH)
	ts := c.ts
	yMax := roundScale(yScale(frames, runs), ts.GraphHeight(), yLabelEvery)
	ts.SetTimeRange(first, end)
	ts.SetYRange(0, yMax)
	ts.SetViewTimeRange(first, end)
	ts.SetViewYRange(0, yMax)
	// The canvas is cleared in place, only where the last rebuild drew,
	// and the line drawn with ntcharts' line runes: ts.Draw would allocate
	// a new canvas (2 MB of styled cells at 200 columns) every sample, and
	// averages bursts away.
	if c.ink != nil {
		c.ink.clear(&ts.Canvas)
	}
	ts.DrawXYAxisAndLabel()
	cols := columnsOf(ts)
	rowOf := rowScale(ts)
	rows := peakRows(frames, cols, rowOf)
	graph.DrawLineSequence(&ts.Canvas, true, cols.left, rows, runes.ArcLineStyle, st.ChartLine)
	capRows := drawCaps(st, ts, runs, cols, rowOf)
	pinned, gaps := intervalColumns(frames, cols)
	shade := columnShade{from: cols.left, cols: pinned, rows: ts.Origin().Y, bg: st.PinnedColumn.GetBackground()}
	c.ink = chartInk(width, chartH, ts.Origin(), cols.left, rows, capRows)
	c.view = canvasView(&ts.Canvas, &shade, c.ink, c.runs) + "\n" +
		pinnedStrip(st, pinned, gaps, changeColumns(runs, cols, mark, first, end), cols.left, width)
}

// timeRange is the span the chart shows. ntcharts' time axis is in whole
// seconds: the view ends on the second after the last frame so that
// frame is drawn where it was taken, not pulled back onto the second
// before it.
func timeRange(frames []diagnose.Frame) (first, end time.Time) {
	first, end = frames[0].Sample.Time, frames[len(frames)-1].Sample.Time
	if !end.After(first) {
		first = end.Add(-time.Second)
	}
	if viewEnd := end.Truncate(time.Second); viewEnd.Before(end) {
		end = viewEnd.Add(time.Second)
	}
	return first, end
}

// ensure makes the time-series chart for the size and styles, keeping
// the one it has when they have not changed.
func (c *Chart) ensure(st *styles.Styles, width, chartH int) {
	if c.ts != nil && c.w == width && c.h == chartH && c.styles == st {
		return
	}
	ts := timeserieslinechart.New(width, chartH,
		timeserieslinechart.WithXYSteps(3, yLabelEvery),
		timeserieslinechart.WithXLabelFormatter(func(_ int, v float64) string {
			return time.Unix(int64(v), 0).Local().Format("15:04:05")
		}),
		timeserieslinechart.WithYLabelFormatter(func(_ int, v float64) string { return compact(v) }),
		timeserieslinechart.WithAxesStyles(st.ChartAxes, st.ChartLabels),
		timeserieslinechart.WithStyle(st.ChartLine),
	)
	if c.styles != st {
		c.runs = runStyles{}
	}
	c.ts, c.w, c.h, c.styles, c.ink = &ts, width, chartH, st, nil
}

// pinnedStrip marks, under the plot area (whose first column is left),
// the columns whose interval was pinned at the cap, the columns where
// the stream was down, and the columns of changes (▲: the cap changed,
// or a tuning apply).
func pinnedStrip(st *styles.Styles, marks, gaps []bool, changes map[int]bool, left, width int) string {
	var b strings.Builder
	label := "pinned"
	if len(label) > left {
		label = "▸"
	}
	b.WriteString(st.Label.Render(fmt.Sprintf("%*s", left, label)))
	kind := func(i int) int { // 0 nothing, 1 pinned, 2 gap, 3 the mark
		switch {
		case changes[i]:
			return 3
		case marks[i]:
			return 1
		case gaps[i]:
			return 2
		}
		return 0
	}
	for i := 0; i < len(marks); { // one styled run per stretch
		j := i
		for j < len(marks) && kind(j) == kind(i) {
			j++
		}
		switch kind(i) {
		case 1:
			b.WriteString(st.Crit.Render(strings.Repeat(styles.GlyphPinned, j-i)))
		case 2:
			b.WriteString(st.Dim.Render(strings.Repeat(styles.GlyphGap, j-i)))
		case 3:
			b.WriteString(st.OK.Render(styles.GlyphApplied))
		default:
			b.WriteString(strings.Repeat(" ", j-i))
		}
		i = j
	}
	return fitStrip(b.String(), width)
}

// capLabel is the cap as its row's label: exact when it fits in width
// (4096), else compact (262k).
func capLabel(v float64, width int) string {
	if exact := fmt.Sprintf("%.0f", v); len(exact) <= width {
		return exact
	}
	return compact(v)
}

// compact formats an axis value: 4096 → "4.1k".
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// fitStrip pads or cuts the strip to width cells.
func fitStrip(s string, width int) string {
	if w := lipgloss.Width(s); w <= width {
		return s + strings.Repeat(" ", width-w)
	}
	return ansi.Truncate(s, width, "…")
}
