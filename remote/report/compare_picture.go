package report

import (
	"image/color"

	"github.com/tablefull/tablefull/model/compare"
)

// ComparePicture draws both sides' count against the cap on one axis of
// time from each pass's start: A's passes in red, B's in blue, each
// count's peak solid and its cap dashed; a log axis when the cap was
// raised many times over, as the report's table chart does.
func ComparePicture(c compare.Comparison) []byte {
	span, top, low := 1.0, 1.0, 0.0
	for _, p := range append(append([]compare.Pass(nil), c.A.Passes...), c.B.Passes...) {
		for _, pt := range p.Table {
			span = max(span, pt.Since.Seconds())
			top = max(top, float64(pt.Peak), float64(pt.Cap))
			if capped := float64(pt.Cap); capped > 0 && (low == 0 || capped < low) {
				low = capped
			}
		}
	}
	ch := axis{0, span}.newChart("entries", chartHeight)
	ch.elapsed, ch.yHi = true, yTop(top)
	if low > 0 && top/low > 8 {
		ch.logY, ch.yLo, ch.yHi = true, 1, top*1.5
	}
	for _, side := range []struct {
		name   string
		passes []compare.Pass
		colour color.Color
	}{{"A (before)", c.A.Passes, critColour}, {"B (after)", c.B.Passes, primary}} {
		for _, p := range side.passes {
			for _, seg := range tableSegments(p.Table) {
				ch.line(seg[0], side.colour, false)
				ch.line(seg[1], side.colour, true)
			}
		}
		ch.legend = append(ch.legend,
			legendEntry{name: side.name + ": the count's peak, " + plural(len(side.passes), "pass", "passes"), colour: side.colour},
			legendEntry{name: side.name + ": nf_conntrack_max", colour: side.colour, dashed: true})
	}
	return ch.svg(ch.leftMargin(), "compare")
}

// tableSegments are a pass's count and cap lines, broken where its
// stream was down; a count is at least 1 so a log axis can draw it.
func tableSegments(pts []compare.TablePoint) [][2][]point {
	var out [][2][]point
	for i, pt := range pts {
		if i == 0 || pt.Gap {
			out = append(out, [2][]point{})
		}
		x := pt.Since.Seconds()
		last := &out[len(out)-1]
		last[0] = append(last[0], point{x, max(1, float64(pt.Peak))})
		last[1] = append(last[1], point{x, max(1, float64(pt.Cap))})
	}
	return out
}
