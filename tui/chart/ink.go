package chart

import (
	"github.com/NimbleMarkets/ntcharts/canvas"
)

// inkMask marks the canvas cells a chart rebuild may have drawn on; every
// other cell is known to be blank. A canvas cell is a 560-byte styled
// value that ntcharts hands out only by copy, so clearing and reading the
// whole canvas each sample was most of the chart's cost, while the line,
// the axes and their labels cover about a third of it. The mask lets the
// rebuild clear, and the renderer read, only those cells.
//
// What a rebuild draws: the Y labels and the Y axis (the columns up to
// the axis, on every row), the X axis and its labels (every row from the
// axis down), the cap line (one whole row) and the count's line (in each
// column, the rows between its row and the previous column's).
type inkMask struct {
	w, h  int
	cells []bool
}

// newInkMask is an empty mask over a w × h canvas.
func newInkMask(w, h int) *inkMask {
	return &inkMask{w: w, h: h, cells: make([]bool, w*h)}
}

// chartInk is the mask of a rebuild: axes and labels around origin, the
// line (rows[i] is its row in column left+i) and the caps' rows (and the
// top row, where a cap above the scale is named).
func chartInk(w, h int, origin canvas.Point, left int, rows []int, capRows []int) *inkMask {
	m := newInkMask(w, h)
	for y := range h {
		m.span(y, 0, origin.X)
	}
	for y := origin.Y; y < h; y++ {
		m.span(y, 0, w-1)
	}
	for _, r := range capRows {
		m.span(r, 0, w-1)
	}
	for i, y := range rows {
		from := y
		if i > 0 {
			from = rows[i-1]
		}
		for r := min(from, y); r <= max(from, y); r++ {
			m.span(r, left+i, left+i)
		}
	}
	return m
}

// span marks row y from column x0 to x1, clipped to the canvas.
func (m *inkMask) span(y, x0, x1 int) {
	if y < 0 || y >= m.h {
		return
	}
	for x := max(0, x0); x <= min(x1, m.w-1); x++ {
		m.cells[y*m.w+x] = true
	}
}

// has reports whether the cell at x, y may be drawn on. A nil mask knows
// nothing, so every cell may be.
func (m *inkMask) has(x, y int) bool {
	if m == nil {
		return true
	}
	return x >= 0 && y >= 0 && x < m.w && y < m.h && m.cells[y*m.w+x]
}

// clear blanks the marked cells of c, leaving the canvas as a Fill with
// blank cells would.
func (m *inkMask) clear(c *canvas.Model) {
	for i, on := range m.cells {
		if on {
			c.SetCell(canvas.Point{X: i % m.w, Y: i / m.w}, canvas.Cell{})
		}
	}
}
