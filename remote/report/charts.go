package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tablefull/tablefull/model"
)

// Chart is one figure of the report: its file name, caption and SVG.
type Chart struct {
	Name    string // file name without .svg
	Caption string
	SVG     []byte
}

// Colours by role, as the console's styles: crit for what loses
// connections (the cap, drops), warn, ok, and the series that are only
// context.
var (
	critColour   = color.RGBA{R: 0xc0, G: 0x1c, B: 0x28, A: 0xff}
	critShade    = color.NRGBA{R: 0xc0, G: 0x1c, B: 0x28, A: 0x38}
	warnColour   = color.RGBA{R: 0xd0, G: 0x7a, B: 0x00, A: 0xff}
	okColour     = color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff}
	primary      = color.RGBA{R: 0x1f, G: 0x4e, B: 0x9a, A: 0xff}
	contextTone  = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	seriesTones  = []color.Color{primary, warnColour, okColour, contextTone, color.RGBA{R: 0x7b, G: 0x1f, B: 0xa2, A: 0xff}, color.RGBA{R: 0x00, G: 0x83, B: 0x8f, A: 0xff}}
	severityTone = map[model.Severity]color.Color{model.SevCrit: critColour, model.SevWarn: warnColour, model.SevOK: okColour}
)

// Chart sizes: a page's width, and the height of a chart and of a
// verdict band's row.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 2.6 * vg.Inch
	bandRow     = 0.28 * vg.Inch
	// perCPULines is how many CPUs the drops chart draws a line for.
	perCPULines = 6
)

// axis is the time axis every chart shares.
type axis struct{ min, max float64 }

func axisOf(in *model.Incident) axis {
	bs := in.Timeline.Buckets()
	if len(bs) == 0 {
		return axis{}
	}
	lo, hi := unix(bs[0].From), unix(bs[len(bs)-1].To)
	if hi <= lo {
		hi = lo + 1
	}
	return axis{lo, hi}
}

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// newPlot is an empty chart on the shared time axis.
func (a axis) newPlot(ylabel string) *plot.Plot {
	p := plot.New()
	p.X.Min, p.X.Max = a.min, a.max
	p.X.Tick.Marker = clockTicks{}
	p.X.Label.Text = "time (UTC)"
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.Y.Tick.Marker = countTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.XOffs = vg.Points(4)
	p.Legend.Padding = vg.Points(1.5)
	p.Add(plotter.NewGrid())
	return p
}

// series is one line of a chart, broken at gaps in the stream.
type series struct {
	name   string
	colour color.Color
	dashed bool
	value  func(model.Bucket) float64
}

// segments are a series' points over the buckets, a new segment after
// each gap in the stream and around each bucket whose value was not read
// (NaN): a part missing is not drawn as zero.
func segments(bs []model.Bucket, value func(model.Bucket) float64) []plotter.XYs {
	var out []plotter.XYs
	open := false
	for _, b := range bs {
		v := value(b)
		if math.IsNaN(v) {
			open = false
			continue
		}
		if !open || b.Gap {
			out = append(out, nil)
			open = true
		}
		out[len(out)-1] = append(out[len(out)-1], plotter.XY{X: unix(b.To), Y: v})
	}
	return out
}

// addLines draws each series, broken at gaps, and names it in the legend
// once.
func addLines(p *plot.Plot, bs []model.Bucket, ss ...series) error {
	for _, s := range ss {
		for i, seg := range segments(bs, s.value) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("chart %s: %w", s.name, err)
			}
			l.Color, l.Width = s.colour, vg.Points(1.2)
			if s.dashed {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			p.Add(l)
			if i == 0 {
				p.Legend.Add(s.name, l)
			}
		}
	}
	return nil
}

// spans are the stretches of consecutive buckets where in holds, as
// [from, to] in unix seconds; a gap in the stream ends a stretch.
func spans(bs []model.Bucket, in func(model.Bucket) bool) [][2]float64 {
	var out [][2]float64
	open := false
	for _, b := range bs {
		switch {
		case !in(b):
			open = false
		case open && !b.Gap:
			out[len(out)-1][1] = unix(b.To)
		default:
			out = append(out, [2]float64{unix(b.From), unix(b.To)})
			open = true
		}
	}
	return out
}

// box fills [x0, x1] × [y0, y1].
func box(p *plot.Plot, x0, x1, y0, y1 float64, fill color.Color) error {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		return fmt.Errorf("box: %w", err)
	}
	poly.Color, poly.LineStyle.Width = fill, 0
	p.Add(poly)
	return nil
}

// shade fills the stretches where in holds, from bottom to top.
func shade(p *plot.Plot, bs []model.Bucket, bottom, top float64, fill color.Color, in func(model.Bucket) bool) error {
	for _, sp := range spans(bs, in) {
		if err := box(p, sp[0], sp[1], bottom, top, fill); err != nil {
			return err
		}
	}
	return nil
}

// figure is a chart before it is drawn.
type figure struct {
	p             *plot.Plot
	name, caption string
	height        vg.Length
}

// charts are the report's figures, in order: the verdict band, the
// table, drops, CPU and disk, TCP. They are drawn with their data areas
// aligned, so one instant is at the same place on every chart.
func charts(in *model.Incident) ([]Chart, error) {
	a := axisOf(in)
	bs := in.Timeline.Buckets()
	var figs []figure
	for _, build := range []func(axis, *model.Incident, []model.Bucket) (figure, error){
		verdictBand, tableChart, dropsChart, loadChart, tcpChart} {
		f, err := build(a, in, bs)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	left := make([]vg.Length, len(figs))
	var most vg.Length
	for i, f := range figs {
		c := draw.New(vgsvg.New(chartWidth, f.height))
		left[i] = f.p.DataCanvas(c).Min.X - c.Min.X
		most = max(most, left[i])
	}
	out := make([]Chart, len(figs))
	for i, f := range figs {
		svg := vgsvg.New(chartWidth, f.height)
		f.p.Draw(draw.Crop(draw.New(svg), most-left[i], 0, 0, 0))
		var b bytes.Buffer
		if _, err := svg.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("render %s: %w", f.name, err)
		}
		out[i] = Chart{Name: f.name, Caption: f.caption, SVG: b.Bytes()}
	}
	return out, nil
}

func maxOf(bs []model.Bucket, v func(model.Bucket) float64) float64 {
	m := 0.0
	for _, b := range bs {
		if x := v(b); !math.IsNaN(x) { // max with NaN is NaN
			m = max(m, x)
		}
	}
	return m
}

// yTop leaves room above the highest value for a legend of n entries.
func yTop(m float64, n int) float64 { return max(1, m*(1.1+0.12*float64(n))) }
