package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/tablefull/tablefull/model/units"
)

// chart is one figure before it is written: a data area on the shared
// time axis and a value axis, and what is drawn on it in order. It is
// written as SVG by hand: gonum/plot, which drew it before, parses its
// twelve embedded fonts in its init, in every tablefull subcommand:
// megabytes of resident memory for an agent, a census or an exporter that
// never draws a chart (docs/development.md).
type chart struct {
	x      axis
	yLo    float64
	yHi    float64
	logY   bool
	yLabel string
	rows   []string // a verdict band's row names, bottom first: y = index
	// elapsed: x is seconds from a start, not a time of day.
	elapsed bool
	height  float64
	legend  []legendEntry
	// shapes are drawn in order, each written by its function of the
	// two axes' scales (data → pixels).
	shapes []func(px, py func(float64) float64) string
}

// legendEntry is one line of the legend and its swatch.
type legendEntry struct {
	name   string
	colour color.Color
	kind   swatch
	dashed bool
}

// swatch is how a legend entry is drawn.
type swatch int

const (
	swatchLine swatch = iota
	swatchShade
	swatchMark
)

// Sizes in pixels: a page's width, the font, the margins around the data
// area (the left one is shared by all charts, so their data areas align).
const (
	svgWidth   = 768
	fontSize   = 11
	charWidth  = 0.6 * fontSize // a sans-serif character's width, about
	marginTop  = 8
	marginRite = 12
	marginBot  = 38
)

// newChart is an empty chart on the shared time axis.
func (a axis) newChart(yLabel string, height float64) *chart {
	return &chart{x: a, yLabel: yLabel, height: height, yHi: 1}
}

// leftMargin is what the value labels and the axis label need.
func (c *chart) leftMargin() float64 {
	widest := 0
	for _, t := range c.yTicks() {
		widest = max(widest, len([]rune(t.label)))
	}
	for _, r := range c.rows {
		widest = max(widest, len([]rune(r)))
	}
	return float64(widest)*charWidth + 30
}

// tick is one labelled value on an axis.
type tick struct {
	value float64
	label string
}

// yTicks are the value axis's labels: the rows of a band, powers of ten
// on a log axis, round steps (1, 2 or 5 × 10ⁿ) otherwise.
func (c *chart) yTicks() []tick {
	var out []tick
	switch {
	case c.rows != nil:
		for i, r := range c.rows {
			out = append(out, tick{float64(i), r})
		}
	case c.logY:
		for p := math.Ceil(math.Log10(max(c.yLo, 1))); math.Pow(10, p) <= c.yHi; p++ {
			out = append(out, tick{math.Pow(10, p), countLabel(math.Pow(10, p))})
		}
	default:
		step := niceStep((c.yHi - c.yLo) / 5)
		for v := math.Ceil(c.yLo/step) * step; v <= c.yHi+step/1e6; v += step {
			out = append(out, tick{v, countLabel(v)})
		}
	}
	return out
}

// niceStep is the round step (1, 2 or 5 × 10ⁿ) at or above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// countLabel is a value with thousands separators when whole.
func countLabel(v float64) string {
	if v >= 0 && v == math.Trunc(v) && v < 1e18 {
		return units.Int(uint64(v))
	}
	return fmt.Sprintf("%.3g", v)
}

// svg writes the chart with its data area left px from the edge; name
// makes its ids its own, so that charts inlined in one page do not clip
// each other by a shared id.
func (c *chart) svg(left float64, name string) []byte {
	clip := "data-" + idSafe(name)
	var b bytes.Buffer
	// The legend has rows of its own above the data area, so that no
	// line runs under it and the value axis need not reach above the data.
	legendH := 0.0
	if len(c.legend) > 0 {
		legendH = float64(fontSize+3)*float64(len(c.legend)) + 6
	}
	w, h := float64(svgWidth), c.height+legendH
	x0, x1, y0, y1 := left, w-marginRite, h-marginBot, float64(marginTop)+legendH
	px := func(v float64) float64 { return x0 + (v-c.x.min)/(c.x.max-c.x.min)*(x1-x0) }
	py := func(v float64) float64 {
		lo, hi := c.yLo, c.yHi
		if c.logY {
			v, lo, hi = math.Log10(max(v, 1e-9)), math.Log10(max(lo, 1e-9)), math.Log10(hi)
		}
		if hi <= lo {
			hi = lo + 1
		}
		return y0 - (v-lo)/(hi-lo)*(y0-y1)
	}
	fmt.Fprintf(&b, "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"sans-serif\" font-size=\"%d\">\n",
		svgWidth, h, svgWidth, h, fontSize)
	fmt.Fprintf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n<clipPath id=\"%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/></clipPath>\n", clip, x0, y1, x1-x0, y0-y1)
	xTicks, xTitle := clockTicks, "time (UTC)"
	if c.elapsed {
		xTicks, xTitle = elapsedTicks, "since each recording's start"
	}
	for _, t := range xTicks(c.x.min, c.x.max) {
		x := px(t.value)
		if t.label == "" {
			fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n", x, y0, x, y0+3)
			continue
		}
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>", x, y1, x, y0, x, y0, x, y0+5)
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, y0+17, esc(t.label))
	}
	for _, t := range c.yTicks() {
		y := py(t.value)
		if c.rows == nil {
			fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", x0, y, x1, y)
		}
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			x0-5, y, x0, y, x0-8, y+4, esc(t.label))
	}
	fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", (x0+x1)/2, h-6, xTitle)
	if c.yLabel != "" {
		fmt.Fprintf(&b, "<text transform=\"translate(%d %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", fontSize+2, (y0+y1)/2, esc(c.yLabel))
	}
	fmt.Fprintf(&b, "<g clip-path=\"url(#%s)\">\n", clip)
	for _, s := range c.shapes {
		b.WriteString(s(px, py))
	}
	b.WriteString("</g>\n")
	fmt.Fprintf(&b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#000\"/>\n", x0, y1, y0, x1)
	if len(c.legend) > 0 {
		c.writeLegend(&b, x0+6, float64(marginTop))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// writeLegend lists the entries at (x, y), on a white ground.
func (c *chart) writeLegend(b *bytes.Buffer, x, y float64) {
	widest := 0
	for _, e := range c.legend {
		widest = max(widest, len([]rune(e.name)))
	}
	row := float64(fontSize + 3)
	fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0.85\"/>\n", x-2, y-2, 30+float64(widest)*charWidth, row*float64(len(c.legend))+4)
	for i, e := range c.legend {
		cy := y + row*float64(i) + row/2
		switch e.kind {
		case swatchShade:
			fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"8\" %s/>", x, cy-4, fill(e.colour))
		case swatchMark:
			fmt.Fprintf(b, "<path d=\"%s\" %s/>", triangle(x+10, cy, 4), fill(e.colour))
		default:
			fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>", x, cy, x+20, cy, stroke(e.colour, e.dashed))
		}
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">%s</text>\n", x+26, cy+3.5, fontSize-1, esc(e.name))
	}
}

// line draws points joined, in data coordinates.
func (c *chart) line(pts []point, colour color.Color, dashed bool) {
	c.shapes = append(c.shapes, func(px, py func(float64) float64) string {
		var s strings.Builder
		s.WriteString("<polyline points=\"")
		for i, p := range pts {
			if i > 0 {
				s.WriteByte(' ')
			}
			fmt.Fprintf(&s, "%.1f,%.1f", px(p.x), py(p.y))
		}
		fmt.Fprintf(&s, "\" fill=\"none\" %s/>\n", stroke(colour, dashed))
		return s.String()
	})
}

// box fills [x0, x1] × [y0, y1], in data coordinates.
func (c *chart) box(x0, x1, y0, y1 float64, colour color.Color) {
	c.shapes = append(c.shapes, func(px, py func(float64) float64) string {
		return fmt.Sprintf("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n",
			px(x0), py(y1), max(px(x1)-px(x0), 0.5), max(py(y0)-py(y1), 0), fill(colour))
	})
}

// mark draws a ▲ at (x, y) with its label to the right.
func (c *chart) mark(x, y float64, label string, colour color.Color) {
	c.shapes = append(c.shapes, func(px, py func(float64) float64) string {
		return fmt.Sprintf("<path d=\"%s\" %s/><text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\">%s</text>\n",
			triangle(px(x), py(y), 4), fill(colour), px(x)+6, py(y)+3, fontSize-1, esc(label))
	})
}

// point is a value at a time (unix seconds).
type point struct{ x, y float64 }

func triangle(x, y, r float64) string {
	return fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y-r, x+r, y+r*0.7, x-r, y+r*0.7)
}

// hex is a colour as #rrggbb and its opacity.
func hex(c color.Color) (string, float64) {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B), float64(n.A) / 255
}

func fill(c color.Color) string {
	h, a := hex(c)
	if a < 1 {
		return fmt.Sprintf("fill=\"%s\" fill-opacity=\"%.2f\"", h, a)
	}
	return fmt.Sprintf("fill=\"%s\"", h)
}

func stroke(c color.Color, dashed bool) string {
	h, _ := hex(c)
	s := fmt.Sprintf("stroke=\"%s\" stroke-width=\"1.6\"", h)
	if dashed {
		s += " stroke-dasharray=\"5 3\""
	}
	return s
}

// esc escapes text for SVG: our labels hold knob values and kinds, never
// markup.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// idSafe is name with every character an XML id or a url(#…) reference
// could stumble on replaced.
func idSafe(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}
