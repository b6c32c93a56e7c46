package report

import (
	"image/color"
	"math"
	"time"

	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/verdict"
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
	severityTone = map[verdict.Severity]color.Color{verdict.SevCrit: critColour, verdict.SevWarn: warnColour, verdict.SevOK: okColour}
)

// Chart sizes in pixels: the height of a chart and of a verdict band's
// row (the width is svgWidth).
const (
	chartHeight = 250
	bandRow     = 27
	// perCPULines is how many CPUs the drops chart draws a line for.
	perCPULines = 6
)

// axis is the time axis every chart shares.
type axis struct{ min, max float64 }

func axisOf(in *incident.Incident) axis {
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

// series is one line of a chart, broken at gaps in the stream.
type series struct {
	name   string
	colour color.Color
	dashed bool
	value  func(incident.Bucket) float64
}

// segments are a series' points over the buckets, a new segment after
// each gap in the stream and around each bucket whose value was not read
// (NaN): a part missing is not drawn as zero.
func segments(bs []incident.Bucket, value func(incident.Bucket) float64) [][]point {
	var out [][]point
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
		out[len(out)-1] = append(out[len(out)-1], point{x: unix(b.To), y: v})
	}
	return out
}

// addLines draws each series, broken at gaps, and names it in the legend
// once.
func addLines(c *chart, bs []incident.Bucket, ss ...series) {
	for _, s := range ss {
		for _, seg := range segments(bs, s.value) {
			c.line(seg, s.colour, s.dashed)
		}
		c.legend = append(c.legend, legendEntry{name: s.name, colour: s.colour, dashed: s.dashed})
	}
}

// spans are the stretches of consecutive buckets where in holds, as
// [from, to] in unix seconds; a gap in the stream ends a stretch.
func spans(bs []incident.Bucket, in func(incident.Bucket) bool) [][2]float64 {
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

// shade fills the stretches where in holds, from bottom to top.
func shade(c *chart, bs []incident.Bucket, bottom, top float64, fill color.Color, in func(incident.Bucket) bool) {
	for _, sp := range spans(bs, in) {
		c.box(sp[0], sp[1], bottom, top, fill)
	}
}

// figure is a chart before it is drawn.
type figure struct {
	c             *chart
	name, caption string
}

// charts are the report's figures, in order: the verdict band, the
// table, drops, CPU and disk, TCP. They are drawn with their data areas
// aligned, so one instant is at the same place on every chart.
func charts(in *incident.Incident) ([]Chart, error) {
	a := axisOf(in)
	bs := in.Timeline.Buckets()
	var figs []figure
	for _, build := range []func(axis, *incident.Incident, []incident.Bucket) figure{
		verdictBand, tableChart, dropsChart, loadChart, tcpChart} {
		figs = append(figs, build(a, in, bs))
	}
	left := 0.0
	for _, f := range figs {
		left = max(left, f.c.leftMargin())
	}
	out := make([]Chart, len(figs))
	for i, f := range figs {
		out[i] = Chart{Name: f.name, Caption: f.caption, SVG: f.c.svg(left, f.name)}
	}
	return out, nil
}

func maxOf(bs []incident.Bucket, v func(incident.Bucket) float64) float64 {
	m := 0.0
	for _, b := range bs {
		if x := v(b); !math.IsNaN(x) { // max with NaN is NaN
			m = max(m, x)
		}
	}
	return m
}

// yTop is the value axis's top: a little above the highest value (the
// legend sits above the data area, so the axis fits what it draws).
func yTop(m float64) float64 { return max(1, m*1.05) }
