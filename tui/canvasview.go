package tui

import (
	"strings"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/lipgloss"
)

// styleKey is what a chart cell's style can differ in: the chart only sets
// colours and bold.
type styleKey struct {
	fg, bg lipgloss.TerminalColor
	bold   bool
}

func keyOf(s lipgloss.Style) styleKey {
	return styleKey{fg: s.GetForeground(), bg: s.GetBackground(), bold: s.GetBold()}
}

// canvasView renders an ntcharts canvas as canvas.Model.View does, but
// styles each run of equally styled cells once. ntcharts renders every
// cell on its own, which at 200×30 was most of the console's CPU.
func canvasView(c *canvas.Model) string {
	var b, run strings.Builder
	w, h := c.Width(), c.Height()
	for y := range h {
		if y > 0 {
			b.WriteByte('\n')
		}
		var cur lipgloss.Style
		var curKey styleKey
		flush := func() {
			if run.Len() > 0 {
				b.WriteString(cur.Render(run.String()))
				run.Reset()
			}
		}
		for x := range w {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			k := keyOf(cell.Style)
			if x == 0 || k != curKey {
				flush()
				cur, curKey = cell.Style, k
			}
			if cell.Rune == 0 {
				run.WriteByte(' ')
			} else {
				run.WriteRune(cell.Rune)
			}
		}
		flush()
	}
	return b.String()
}
