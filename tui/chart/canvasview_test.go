package chart

import (
	"regexp"
	"slices"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/tui/styles"
)

// TestCanvasViewMatchesNtcharts: the run-length renderer, with a column
// shaded its way, shows the same cells in the same styles as ntcharts'
// own View of the same chart shaded with SetColumnBackgroundStyle.
func TestCanvasViewMatchesNtcharts(t *testing.T) {
	st := trueColourStyles(t)
	frames := incidentFrames(30, 100)
	t0 := frames[0].Sample.Time
	draw := func() *timeserieslinechart.Model {
		ts := timeserieslinechart.New(60, 10, timeserieslinechart.WithTimeRange(t0, t0.Add(30*time.Second)),
			timeserieslinechart.WithStyle(st.ChartLine), timeserieslinechart.WithAxesStyles(st.ChartAxes, st.ChartLabels))
		for _, f := range frames {
			ts.Push(timeserieslinechart.TimePoint{Time: f.Sample.Time, Value: float64(f.Sample.Conntrack.Peak)})
		}
		ts.Draw()
		return &ts
	}
	theirs, ours := draw(), draw()
	theirs.SetColumnBackgroundStyle(t0.Add(20*time.Second), st.PinnedColumn)
	shaded := -1
	for x := range theirs.Width() {
		if theirs.Canvas.Cell(canvas.Point{X: x, Y: 0}).Style.GetBackground() != (lipgloss.NoColor{}) {
			shaded = x
		}
	}
	if shaded < 0 {
		t.Fatal("ntcharts shaded no column")
	}
	want := theirs.View()
	got := canvasView(&ours.Canvas, &columnShade{from: shaded, cols: []bool{true}, rows: ours.Origin().Y, bg: st.PinnedColumn.GetBackground()}, nil, nil)
	if g, w := styledCells(got), styledCells(want); !slices.Equal(g, w) {
		t.Errorf("cells differ:\n%s\nwant\n%s\n%q\nwant\n%q", ansi.Strip(got), ansi.Strip(want), g, w)
	}
	if got == ansi.Strip(got) {
		t.Errorf("no styling at all in the run-length view")
	}
	if len(got) >= len(want) {
		t.Errorf("run-length view is %d bytes, ntcharts' %d: runs were not merged", len(got), len(want))
	}
}

// trueColourStyles switches lipgloss to true colour until the test ends
// and returns the styles made for it.
func trueColourStyles(t *testing.T) *styles.Styles {
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	return styles.DefaultStyles()
}

// styledCell is a printed rune and the escape sequences in force for it.
type styledCell struct {
	r   rune
	sgr string
}

// styledCells reads s as a terminal would: each rune with the styles set
// before it since the last reset. Line breaks count as cells.
func styledCells(s string) []styledCell {
	var out []styledCell
	var cur string
	for len(s) > 0 {
		if loc := sgrPattern.FindStringIndex(s); loc != nil && loc[0] == 0 {
			switch seq := s[:loc[1]]; seq {
			case "\x1b[0m", "\x1b[m":
				cur = ""
			default:
				cur += seq
			}
			s = s[loc[1]:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		style := cur
		if r == '\n' {
			style = ""
		}
		out = append(out, styledCell{r, style})
		s = s[n:]
	}
	return out
}

var sgrPattern = regexp.MustCompile(`\x1b\[[0-9;]*m`)
