package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// verdictBand shows which verdicts held when: a row a verdict, most
// severe on top, coloured by severity.
func verdictBand(a axis, in *incident.Incident, bs []incident.Bucket) figure {
	kinds := in.HeldKinds()
	if len(kinds) == 0 {
		kinds = []verdict.Kind{verdict.OK}
	}
	c := a.newChart("", bandRow*float64(len(kinds))+86)
	c.rows = make([]string, len(kinds))
	for i, k := range kinds {
		row := float64(len(kinds) - 1 - i) // most severe on top
		c.rows[len(kinds)-1-i] = string(k)
		sev, _ := diagnose.KindSeverity(k)
		for _, sp := range spans(bs, func(b incident.Bucket) bool { return b.Held(k) }) {
			c.box(sp[0], sp[1], row-0.35, row+0.35, severityTone[sev])
		}
	}
	c.yLo, c.yHi = -0.5, float64(len(kinds))-0.5
	return figure{c: c, name: "verdicts", caption: "Which verdict held when (red: critical, amber: warning, green: OK)."}
}

// tableChart is the count's peak against the cap, the pinned periods
// shaded and each knob change marked ▲.
func tableChart(a axis, in *incident.Incident, bs []incident.Bucket) figure {
	c := a.newChart("entries", chartHeight)
	high := max(maxOf(bs, func(b incident.Bucket) float64 { return float64(b.Peak) }),
		maxOf(bs, func(b incident.Bucket) float64 { return float64(b.Cap) }))
	top := yTop(high)
	floor := func(v float64) float64 { return v }
	if lo := minCap(bs); lo > 0 && high/lo > 8 {
		// The cap was raised many times over: on a linear axis the
		// count pinned at the old cap would lie on the floor.
		c.logY, c.yLo, top = true, 1, high*1.5
		floor = func(v float64) float64 { return max(1, v) }
	}
	c.yHi = top
	shade(c, bs, c.yLo, top, critShade, func(b incident.Bucket) bool { return b.Pinned > 0 })
	addLines(c, bs,
		series{name: "nf_conntrack_max (the cap)", colour: critColour, dashed: true, value: func(b incident.Bucket) float64 { return floor(float64(b.Cap)) }},
		series{name: "count (peak in each interval)", colour: primary, value: func(b incident.Bucket) float64 { return floor(float64(b.Peak)) }},
	)
	for _, ch := range in.Changes {
		c.mark(unix(ch.At), markHeight(c.yLo, top), knob.Name(ch.Key)+" "+knobValue(ch.Before)+"→"+knobValue(ch.After), primary)
	}
	if len(in.Changes) > 0 {
		c.legend = append(c.legend, legendEntry{name: "▲ a knob changed", colour: primary, kind: swatchMark})
	}
	c.legend = append(c.legend, legendEntry{name: "pinned at the cap", colour: critShade, kind: swatchShade})
	return figure{c: c, name: "table", caption: "The table: the count's peak against nf_conntrack_max; shaded where it was pinned at the cap, ▲ where a knob changed."}
}

// dropsChart is the table's drops per second, in all and for the CPUs
// that dropped the most.
func dropsChart(a axis, in *incident.Incident, bs []incident.Bucket) figure {
	c := a.newChart("drops/s", chartHeight)
	cpus := in.Timeline.TopDropCPUs(perCPULines)
	c.yHi = yTop(maxOf(bs, incident.Bucket.DropsPS))
	ss := []series{{name: "all CPUs (drop)", colour: critColour, value: incident.Bucket.DropsPS}}
	for i, cpu := range cpus {
		ss = append(ss, series{name: fmt.Sprintf("cpu %d", cpu), colour: seriesTones[i%len(seriesTones)], dashed: true,
			value: func(b incident.Bucket) float64 { return b.CPUDropsPS(cpu) }})
	}
	addLines(c, bs, ss...)
	caption := "Drops per second: packets the table lost (conntrack -S drop; early drops let the packet in)"
	switch n := in.Timeline.DropCPUs(); {
	case n == 0:
		caption += "; no CPU dropped."
	case n > len(cpus):
		caption += fmt.Sprintf("; %d CPUs dropped, the %d that dropped most are drawn.", n, len(cpus))
	default:
		caption += fmt.Sprintf(", per CPU for the %d that dropped.", n)
	}
	return figure{c: c, name: "drops", caption: caption}
}

// loadChart is CPU and disk: the server idle while its clients stall.
func loadChart(a axis, in *incident.Incident, bs []incident.Bucket) figure {
	c := a.newChart("percent", chartHeight)
	c.yHi = 100 // busy and utilisation are shares: the axis ends at the whole
	shade(c, bs, 0, 100, critShade, func(b incident.Bucket) bool { return b.Pinned > 0 })
	addLines(c, bs,
		series{name: "CPU busy (all CPUs)", colour: primary, value: incident.Bucket.BusyPct},
		series{name: "busiest disk's utilisation", colour: warnColour, value: incident.Bucket.DiskUtilPct},
	)
	return figure{c: c, name: "load", caption: "CPU busy and disk utilisation, shaded where the table was pinned: an idle server while its clients stall means the requests are not arriving."}
}

// tcpChart is the TCP signals against the table's ceiling.
func tcpChart(a axis, in *incident.Incident, bs []incident.Bucket) figure {
	c := a.newChart("per second", chartHeight)
	c.yHi = yTop(max(maxOf(bs, incident.Bucket.NewConnsPS), maxOf(bs, incident.Bucket.SynRetransPS), maxOf(bs, incident.Bucket.ListenOverflowsPS)))
	floor := func(v float64) float64 { return v }
	if lo := minOf(bs, func(b incident.Bucket) float64 { return b.Ceiling }); lo > 0 && c.yHi/lo > 8 {
		// A ceiling far below the rates would lie on the zero line of a
		// linear axis, where it cannot be told from it.
		c.logY, c.yLo = true, min(1, lo/2)
		floor = func(v float64) float64 { return max(c.yLo, v) }
	}
	lines := []series{
		{name: "new connections/s", colour: primary, value: func(b incident.Bucket) float64 { return floor(b.NewConnsPS()) }},
		{name: "SYN retransmits/s", colour: warnColour, value: func(b incident.Bucket) float64 { return floor(b.SynRetransPS()) }},
		{name: "listen overflows/s", colour: contextTone, value: func(b incident.Bucket) float64 { return floor(b.ListenOverflowsPS()) }},
	}
	if _, why := peakCeiling(in); why != diagnose.NoCeiling { // a table standing connections fill has none: none is drawn, as the text says
		lines = append(lines, series{name: "ceiling (max ÷ the filling class's hold)", colour: critColour, dashed: true, value: func(b incident.Bucket) float64 {
			if b.Ceiling <= 0 {
				return math.NaN() // no ceiling then: a gap, not a line at 0
			}
			return floor(min(b.Ceiling, c.yHi))
		}})
	}
	addLines(c, bs, lines...)
	return figure{c: c, name: "tcp", caption: "TCP: new connections per second against the ceiling the table can sustain (cut at the top of the chart), SYN retransmits and listen overflows."}
}

// minOf is the least positive v over bs (0: none).
func minOf(bs []incident.Bucket, v func(incident.Bucket) float64) float64 {
	lo := 0.0
	for _, b := range bs {
		if x := v(b); x > 0 && (lo == 0 || x < lo) {
			lo = x
		}
	}
	return lo
}

func minCap(bs []incident.Bucket) float64 {
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

// knobValue is a knob's value as every number in the report is written:
// 16384 → "16,384"; what is not one number is shown as it came.
func knobValue(v string) string {
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		return units.Int(n)
	}
	return safe.Text(v, 24)
}
