package tui

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
// style: for these styles (colours and bold on one line of text) Render
// only wraps the text, so the wrapping is taken once per style and reused.
type sgr struct{ open, close string }

// runStyles caches the wrapping of each style a canvas uses.
type runStyles map[styleKey]sgr

func (rs runStyles) of(k styleKey, s *lipgloss.Style) sgr {
	if w, ok := rs[k]; ok {
		return w
	}
	const mark = "\x00"
	open, close, _ := strings.Cut(s.Render(mark), mark)
	w := sgr{open, close}
	rs[k] = w
	return w
}

// canvasView renders an ntcharts canvas as canvas.Model.View does, but
// styles each run of equally styled cells once, with the escape sequences
// of each style computed once. ntcharts renders every cell through
// lipgloss on its own, which at 200×30 was most of the console's CPU.
func canvasView(c *canvas.Model) string {
	var b strings.Builder
	w, h := c.Width(), c.Height()
	b.Grow(w * h * 2)
	rs := runStyles{}
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		var cur sgr
		var curKey styleKey
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y}) // one copy of the cell, not one per field
			if k := keyOf(&cell.Style); x == 0 || k != curKey {
				w := rs.of(k, &cell.Style)
				b.WriteString(cur.close)
				b.WriteString(w.open)
				cur, curKey = w, k
			}
			if cell.Rune == 0 {
				b.WriteByte(' ')
			} else {
				b.WriteRune(cell.Rune)
			}
		}
		b.WriteString(cur.close)
	}
	return b.String()
}
