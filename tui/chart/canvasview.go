package chart

import (
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
)

// styleKey is what a chart cell's style can differ in: the chart's styles
// (styles.Chart*, PinnedColumn) only set colours. Each lipgloss getter
// copies the whole Style, so the key reads no more than it needs; the
// canvas test fails if a chart style ever differs in something else.
type styleKey struct {
	fg, bg lipgloss.TerminalColor
}

func keyOf(s *lipgloss.Style) styleKey {
	return styleKey{fg: s.GetForeground(), bg: s.GetBackground()}
}

// sgr is what lipgloss writes before and after a run of text in one
// style: for these styles (colours on one line of text) Render only wraps
// the text, so the wrapping is taken once per style and reused.
type sgr struct{ open, close string }

// runStyles caches the wrapping of each style a canvas uses.
type runStyles map[styleKey]sgr

// of is the wrapping of the style with k's colours (none where k has none).
func (rs runStyles) of(k styleKey) sgr {
	if w, ok := rs[k]; ok {
		return w
	}
	s := lipgloss.NewStyle()
	if k.fg != nil {
		s = s.Foreground(k.fg)
	}
	if k.bg != nil {
		s = s.Background(k.bg)
	}
	const mark = "\x00"
	open, close, _ := strings.Cut(s.Render(mark), mark)
	w := sgr{open, close}
	rs[k] = w
	return w
}

// columnShade is a background laid over whole columns of a chart's plot
// area (pinned intervals): cols[i] shades canvas column from+i on every
// row above rows (the X axis).
type columnShade struct {
	from int
	cols []bool
	rows int
	bg   lipgloss.TerminalColor
}

// on reports whether the cell at x, y is shaded.
func (s *columnShade) on(x, y int) bool {
	if s == nil || y >= s.rows {
		return false
	}
	i := x - s.from
	return i >= 0 && i < len(s.cols) && s.cols[i]
}

// canvasView renders an ntcharts canvas as canvas.Model.View does, but
// styles each run of equally styled cells once, with the escape sequences
// of each style computed once. ntcharts renders every cell through
// lipgloss on its own, which on a large pane was most of the console's CPU.
// shade, when not nil, sets the background of the columns it marks as
// ntcharts' SetColumnBackgroundStyle would, without restyling each cell.
// A cell without a rune is drawn unstyled: on our charts only ntcharts'
// drawing calls style cells, always with a rune, and the canvas is
// cleared to blank cells; reading the colours of every blank cell was
// half the cost of a chart.
// ink, when not nil, marks the only cells that may be drawn on; the rest
// are blank and not read at all (see inkMask). rs keeps the escape
// sequences between calls (nil: work them out for this call only).
func canvasView(c *canvas.Model, shade *columnShade, ink *inkMask, rs runStyles) string {
	var b strings.Builder
	w, h := c.Width(), c.Height()
	b.Grow(w * h * 2)
	if rs == nil {
		rs = runStyles{}
	}
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		var cur sgr
		var curKey styleKey
		for x := range w {
			var r rune
			var k styleKey
			if ink.has(x, y) { // the cell is declared only here: zeroing 560 bytes per blank cell cost more than the rest
				cell := c.Cell(canvas.Point{X: x, Y: y}) // one copy of the cell, not one per field
				if r = cell.Rune; r != 0 {               // a blank cell carries no style: see above
					k = keyOf(&cell.Style)
				}
			}
			if shade.on(x, y) {
				k.bg = shade.bg
			}
			if x == 0 || k != curKey {
				w := rs.of(k)
				b.WriteString(cur.close)
				b.WriteString(w.open)
				cur, curKey = w, k
			}
			if r == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteRune(r)
			}
		}
		b.WriteString(cur.close)
	}
	return b.String()
}
