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
// highest count it saw, and the verdicts that held at it.
type windowFrame struct {
	at    time.Time
	peak  uint64
	kinds map[verdict.Kind]bool
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
