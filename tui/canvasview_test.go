package tui

import (
	"maps"
	"regexp"
	"testing"
	"time"

	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/tui/styles"
)

// TestCanvasViewMatchesNtcharts: the run-length renderer shows the same
// cells as ntcharts' own View, with colours on.
func TestCanvasViewMatchesNtcharts(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	st := styles.DefaultStyles()
	var frames = feedAll(t, incident(30), 120, 40).window(100)
	var c pressureChart
	c.rebuild(st, frames, 120, 20, time.Time{})
	t0 := frames[0].Sample.Time
	ts := timeserieslinechart.New(60, 10, timeserieslinechart.WithTimeRange(t0, t0.Add(30*time.Second)),
		timeserieslinechart.WithStyle(st.ChartLine), timeserieslinechart.WithAxesStyles(st.ChartAxes, st.ChartLabels))
	for _, f := range frames {
		ts.Push(timeserieslinechart.TimePoint{Time: f.Sample.Time, Value: float64(f.Sample.Conntrack.Peak)})
	}
	ts.Draw()
	ts.SetColumnBackgroundStyle(t0.Add(20*time.Second), st.PinnedColumn)
	want, got := ts.View(), canvasView(&ts.Canvas)
	if ansi.Strip(got) != ansi.Strip(want) {
		t.Errorf("text differs:\n%s\nwant\n%s", ansi.Strip(got), ansi.Strip(want))
	}
	if got == ansi.Strip(got) {
		t.Errorf("no styling at all in the run-length view")
	}
	if g, w := sgrSet(got), sgrSet(want); !maps.Equal(g, w) {
		t.Errorf("styles differ: run-length view uses %v, ntcharts %v", g, w)
	}
	if len(got) >= len(want) {
		t.Errorf("run-length view is %d bytes, ntcharts' %d: runs were not merged", len(got), len(want))
	}
}

var sgrPattern = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// sgrSet is the set of distinct escape sequences in s.
func sgrSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, m := range sgrPattern.FindAllString(s, -1) {
		out[m] = true
	}
	return out
}
