package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tablefull/tablefull/model"
)

// verdictBand shows which verdicts held when: a row a verdict, most
// severe on top, coloured by severity.
func verdictBand(a axis, in *model.Incident, bs []model.Bucket) (figure, error) {
	kinds := in.HeldKinds()
	if len(kinds) == 0 {
		kinds = []model.Kind{model.OK}
	}
	p := a.newPlot("")
	p.Legend.Top = false
	names := make([]string, len(kinds))
	for i, k := range kinds {
		row := float64(len(kinds) - 1 - i) // most severe on top
		names[len(kinds)-1-i] = string(k)
		sev, _ := model.KindSeverity(k)
		for _, sp := range spans(bs, func(b model.Bucket) bool { return b.Held(k) }) {
			if err := box(p, sp[0], sp[1], row-0.35, row+0.35, severityTone[sev]); err != nil {
				return figure{}, err
			}
		}
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(kinds))-0.5
	return figure{p: p, name: "verdicts", caption: "Which verdict held when (red: critical, amber: warning, green: OK).", height: bandRow*vg.Length(len(kinds)) + 0.9*vg.Inch}, nil
}

// tableChart is the count's peak against the cap, the pinned periods
// shaded and each knob change marked ▲.
func tableChart(a axis, in *model.Incident, bs []model.Bucket) (figure, error) {
	p := a.newPlot("entries")
	high := max(maxOf(bs, func(b model.Bucket) float64 { return float64(b.Peak) }),
		maxOf(bs, func(b model.Bucket) float64 { return float64(b.Cap) }))
	top := yTop(high, 4)
	floor := func(v float64) float64 { return v }
	if lo := minCap(bs); lo > 0 && high/lo > 8 {
		// The cap was raised many times over: on a linear axis the
		// count pinned at the old cap would lie on the floor.
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, top = 1, high*30
		floor = func(v float64) float64 { return max(1, v) }
	}
	p.Y.Max = top
	if err := shade(p, bs, p.Y.Min, top, critShade, func(b model.Bucket) bool { return b.Pinned > 0 }); err != nil {
		return figure{}, err
	}
	if err := addLines(p, bs,
		series{name: "nf_conntrack_max (the cap)", colour: critColour, dashed: true, value: func(b model.Bucket) float64 { return floor(float64(b.Cap)) }},
		series{name: "count (peak in each interval)", colour: primary, value: func(b model.Bucket) float64 { return floor(float64(b.Peak)) }},
	); err != nil {
		return figure{}, err
	}
	if len(in.Changes) > 0 {
		xys := make(plotter.XYs, len(in.Changes))
		labels := make([]string, len(in.Changes))
		for i, c := range in.Changes {
			xys[i] = plotter.XY{X: unix(c.At), Y: markHeight(p.Y.Min, top)}
			labels[i] = knobShort(c.Key) + " " + model.Sanitize(c.Before, 24) + "→" + model.Sanitize(c.After, 24)
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return figure{}, fmt.Errorf("marks: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: primary, Radius: vg.Points(4), Shape: draw.TriangleGlyph{}}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err != nil {
			return figure{}, fmt.Errorf("marks: %w", err)
		}
		lb.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-3)}
		p.Add(sc, lb)
		p.Legend.Add("▲ a knob changed", sc)
	}
	p.Legend.Add("pinned at the cap", shadeThumb{critShade})
	return figure{p: p, name: "table", caption: "The table: the count's peak against nf_conntrack_max; shaded where it was pinned at the cap, ▲ where a knob changed.", height: chartHeight}, nil
}

// dropsChart is the table's drops per second, in all and for the CPUs
// that dropped the most.
func dropsChart(a axis, in *model.Incident, bs []model.Bucket) (figure, error) {
	p := a.newPlot("drops/s")
	cpus := in.Timeline.TopDropCPUs(perCPULines)
	p.Y.Max = yTop(maxOf(bs, model.Bucket.DropsPS), 1+len(cpus))
	ss := []series{{name: "all CPUs (drop + early_drop)", colour: critColour, value: model.Bucket.DropsPS}}
	for i, cpu := range cpus {
		ss = append(ss, series{name: fmt.Sprintf("cpu %d", cpu), colour: seriesTones[i%len(seriesTones)], dashed: true,
			value: func(b model.Bucket) float64 { return b.CPUDropsPS(cpu) }})
	}
	if err := addLines(p, bs, ss...); err != nil {
		return figure{}, err
	}
	caption := "Drops per second: packets the table lost (conntrack -S drop + early_drop)"
	switch n := in.Timeline.DropCPUs(); {
	case n == 0:
		caption += "; no CPU dropped."
	case n > len(cpus):
		caption += fmt.Sprintf("; %d CPUs dropped, the %d that dropped most are drawn.", n, len(cpus))
	default:
		caption += fmt.Sprintf(", per CPU for the %d that dropped.", n)
	}
	return figure{p: p, name: "drops", caption: caption, height: chartHeight}, nil
}

// loadChart is CPU and disk: the server idle while its clients stall.
func loadChart(a axis, in *model.Incident, bs []model.Bucket) (figure, error) {
	p := a.newPlot("percent")
	p.Y.Max = 130
	if err := shade(p, bs, 0, 130, critShade, func(b model.Bucket) bool { return b.Pinned > 0 }); err != nil {
		return figure{}, err
	}
	if err := addLines(p, bs,
		series{name: "CPU busy (all CPUs)", colour: primary, value: model.Bucket.BusyPct},
		series{name: "busiest disk's utilisation", colour: warnColour, value: model.Bucket.DiskUtilPct},
	); err != nil {
		return figure{}, err
	}
	return figure{p: p, name: "load", caption: "CPU busy and disk utilisation, shaded where the table was pinned: an idle server while its clients stall means the requests are not arriving.", height: chartHeight}, nil
}

// tcpChart is the TCP signals against the table's ceiling.
func tcpChart(a axis, in *model.Incident, bs []model.Bucket) (figure, error) {
	p := a.newPlot("per second")
	p.Y.Max = yTop(max(maxOf(bs, model.Bucket.NewConnsPS), maxOf(bs, model.Bucket.SynRetransPS), maxOf(bs, model.Bucket.ListenOverflowsPS)), 4)
	ceiling := series{name: "ceiling (max ÷ TIME_WAIT hold)", colour: critColour, dashed: true, value: func(b model.Bucket) float64 {
		return min(b.Ceiling, p.Y.Max)
	}}
	if err := addLines(p, bs,
		series{name: "new connections/s", colour: primary, value: model.Bucket.NewConnsPS},
		series{name: "SYN retransmits/s", colour: warnColour, value: model.Bucket.SynRetransPS},
		series{name: "listen overflows/s", colour: contextTone, value: model.Bucket.ListenOverflowsPS},
		ceiling,
	); err != nil {
		return figure{}, err
	}
	return figure{p: p, name: "tcp", caption: "TCP: new connections per second against the ceiling the table can sustain (cut at the top of the chart), SYN retransmits and listen overflows.", height: chartHeight}, nil
}

func minCap(bs []model.Bucket) float64 {
	lo := 0.0
	for _, b := range bs {
		if c := float64(b.CapLow); c > 0 && (lo == 0 || c < lo) {
			lo = c
		}
	}
	return lo
}

// markHeight places the ▲ marks below the legend: 70 % of the way up,
// on a log axis too.
func markHeight(lo, hi float64) float64 {
	if lo > 0 && hi/lo > 100 {
		return lo * math.Pow(hi/lo, 0.7)
	}
	return lo + (hi-lo)*0.7
}

// knobShort names a knob in a chart's mark: "max", "hashsize".
func knobShort(key string) string {
	key = strings.TrimPrefix(key, "net.netfilter.nf_conntrack_")
	return strings.TrimPrefix(key, "nf_conntrack.")
}

// shadeThumb draws a legend's swatch for a shaded area.
type shadeThumb struct {
	fill interface{ RGBA() (r, g, b, a uint32) }
}

// Thumbnail implements plot.Thumbnailer.
func (s shadeThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(s.fill, c.ClipPolygonXY(pts))
}
