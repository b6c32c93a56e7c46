package tui

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/chart"
)

// The view in the history: which frame is on screen, the frames the
// chart shows, and how far behind live that is.

// scroll moves the view a quarter of the chart back or forward in history;
// moving past the newest frame follows live again (unless paused).
func (a *App) scroll(dir int) {
	a.moveTo(a.viewIndex() + dir*max(1, chart.Columns(a.width)/4))
}

// moveTo shows frame idx (absolute), clamped to the history.
func (a *App) moveTo(idx int) {
	oldest := a.seq - a.an.Frames().Len()
	idx = max(oldest, idx)
	if idx >= a.seq-1 {
		idx = a.seq - 1
		if !a.paused && a.opts.Speed == 0 {
			idx = -1
		}
	}
	a.view = idx
	a.noteCaption()
	a.refreshChart()
}

// viewIndex is the absolute index of the frame on screen.
func (a *App) viewIndex() int {
	if a.view < 0 {
		return a.seq - 1
	}
	return max(a.view, a.seq-a.an.Frames().Len())
}

// frameAt returns the frame with absolute index i.
func (a *App) frameAt(i int) (model.Frame, bool) {
	r := a.an.Frames()
	j := i - (a.seq - r.Len())
	if j < 0 || j >= r.Len() {
		return model.Frame{}, false
	}
	return r.At(j), true
}

// frame returns the frame on screen.
func (a *App) frame() model.Frame {
	f, _ := a.frameAt(a.viewIndex())
	return f
}

// window returns the frames the chart shows: up to n ending at the view.
func (a *App) window(n int) []model.Frame {
	end := a.viewIndex()
	start := max(a.seq-a.an.Frames().Len(), end-n+1)
	out := make([]model.Frame, 0, max(0, end-start+1))
	for i := start; i <= end; i++ {
		f, _ := a.frameAt(i)
		out = append(out, f)
	}
	return out
}

func (a *App) mode() mode {
	m := mode{paused: a.paused, playback: a.opts.Speed > 0, recording: a.recording}
	if a.view >= 0 {
		m.newCount = a.seq - 1 - a.viewIndex()
		if last, ok := a.an.Frames().Last(); ok {
			m.behind = last.Sample.Time.Sub(a.frame().Sample.Time)
		}
	}
	if a.opts.Speed == 0 && !a.lastArrival.IsZero() {
		if since := a.now.Sub(a.lastArrival); since > a.staleAfter() {
			m.stale = since
		}
	}
	return m
}
