package report

import (
	"time"

	"github.com/tablefull/tablefull/model/units"
)

// steps are the label spacings clockTicks tries, shortest first.
var steps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// clockTicks marks a time axis (unix seconds, UTC) at round times of
// day: every 1, 2, 5, 10, 15 or 30 s, minutes or hours, whichever gives
// four to eight labels, with a minor tick (no label) between two labels.
func clockTicks(lo, hi float64) []tick {
	span := time.Duration((hi - lo) * float64(time.Second))
	step := span / 7 // longer than the longest step: seven labels, whatever they read
	for _, s := range steps {
		if span/s <= 7 {
			step = s
			break
		}
	}
	step = max(step, time.Second)
	layout := "15:04:05"
	if step >= time.Minute {
		layout = "15:04"
	}
	if span > 24*time.Hour {
		layout = "01-02 15:04"
	}
	secs := step.Seconds()
	first := float64(int64(lo/secs)) * secs
	var ticks []tick
	for v := first; v <= hi; v += secs {
		if v >= lo {
			ticks = append(ticks, tick{value: v, label: time.Unix(int64(v), 0).UTC().Format(layout)})
		}
		if m := v + secs/2; m >= lo && m <= hi {
			ticks = append(ticks, tick{value: m})
		}
	}
	return ticks
}

// elapsedTicks marks an axis of seconds from a start at round spans (the
// steps clockTicks tries), labelled "0 s", "30 s", "1 m 0 s".
func elapsedTicks(lo, hi float64) []tick {
	span := time.Duration((hi - lo) * float64(time.Second))
	step := span / 7
	for _, s := range steps {
		if span/s <= 7 {
			step = s
			break
		}
	}
	secs := max(step, time.Second).Seconds()
	var ticks []tick
	for v := 0.0; v <= hi; v += secs {
		if v >= lo {
			ticks = append(ticks, tick{value: v, label: units.Dur(time.Duration(v * float64(time.Second)))})
		}
	}
	return ticks
}
