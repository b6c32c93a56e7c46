package exporter

import (
	"time"

	"github.com/tablefull/tablefull/model/verdict"
)

// DefaultWindow is how far back the peak and the held verdicts reach:
// longer than the usual scrape intervals (15 s, 30 s), so every scraper —
// an HA pair, an operator's curl — reads the same numbers, and none takes
// them from another.
const DefaultWindow = time.Minute

// maxWindowFrames bounds the frames a window keeps (an hour at 100 ms).
const maxWindowFrames = 36000

// windowFrame is what one sample leaves in the window: its time, the
// highest count it saw, the verdicts that held at it, and its table's
// drops since the sample before (drop and early_drop over every CPU, as
// the fleet's engine sums them) over that interval; elapsed is 0 where
// they were not counted.
type windowFrame struct {
	at      time.Time
	peak    uint64
	kinds   map[verdict.Kind]bool
	dropped uint64
	elapsed time.Duration
}

// window is the trailing span of frames the peak and held verdicts cover.
type window struct {
	span   time.Duration
	frames []windowFrame
}

// add keeps a frame and drops the ones older than the span before at.
func (w *window) add(f windowFrame) {
	w.frames = append(w.frames, f)
	cut := 0
	for cut < len(w.frames)-1 && (f.at.Sub(w.frames[cut].at) > w.span || len(w.frames)-cut > maxWindowFrames) {
		cut++
	}
	if cut > 0 {
		w.frames = append(w.frames[:0], w.frames[cut:]...)
	}
}

// peak is the highest count in the window; held the verdicts that held at
// any frame in it.
func (w *window) read() (peak uint64, held map[verdict.Kind]bool) {
	held = map[verdict.Kind]bool{}
	for _, f := range w.frames {
		peak = max(peak, f.peak)
		for k := range f.kinds {
			held[k] = true
		}
	}
	return peak, held
}

// dropsPS is the table's drops per second over the intervals that lie
// within the window and counted them (the newest frame's alone when the
// window is shorter than an interval); ok is false when none did.
func (w *window) dropsPS() (perSec float64, ok bool) {
	if len(w.frames) == 0 {
		return 0, false
	}
	newest := w.frames[len(w.frames)-1]
	from := newest.at.Add(-w.span)
	dropped, elapsed := newest.dropped, newest.elapsed
	for _, f := range w.frames[:len(w.frames)-1] {
		if f.elapsed > 0 && !f.at.Add(-f.elapsed).Before(from) {
			dropped += f.dropped
			elapsed += f.elapsed
		}
	}
	if elapsed <= 0 {
		return 0, false
	}
	return float64(dropped) / elapsed.Seconds(), true
}
