package tui

import (
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/chart"
)

// The view in the history: which frame is on screen, the frames the
// chart shows, and how far behind live that is.

// scroll moves the view a quarter of the frames the chart shows back or
// forward in history ([ and ]; ← and → move one sample); moving past the
// newest frame follows live again (unless paused).
func (a *App) scroll(dir int) {
	shown := min(chart.Columns(a.width), a.an.Frames().Len()) // a short recording fills few columns
	a.moveTo(a.cur.at() + dir*max(1, shown/4))
}

// moveTo shows frame idx (absolute), clamped to the history; past the
// newest it follows live unless paused or a playback.
func (a *App) moveTo(idx int) {
	a.cur.moveTo(idx, !a.cur.paused && !a.player.on())
	a.noteCaption()
	if a.status.said == endOfRecording && a.cur.at() != a.cur.newest() {
		a.status.say("")
	}
}

// frameAt returns the frame with absolute index i.
func (a *App) frameAt(i int) (diagnose.Frame, bool) {
	r := a.an.Frames()
	j := a.cur.offset(i)
	if j < 0 || j >= r.Len() {
		return diagnose.Frame{}, false
	}
	return r.At(j), true
}

// frame returns the frame on screen.
func (a *App) frame() diagnose.Frame {
	f, _ := a.frameAt(a.cur.at())
	return f
}

// window returns the frames the chart shows: up to n ending at the view.
func (a *App) window(n int) []diagnose.Frame {
	end := a.cur.at()
	start := max(a.cur.oldest(), end-n+1)
	out := make([]diagnose.Frame, 0, max(0, end-start+1))
	for i := start; i <= end; i++ {
		f, _ := a.frameAt(i)
		out = append(out, f)
	}
	return out
}

func (a *App) mode() mode {
	m := mode{paused: a.cur.paused, playback: a.player.on(), stored: a.opts.Stored, recording: a.recording,
		connecting: a.cur.seq == 0 && !a.player.on(), disconnected: a.status.link != ""}
	if !a.cur.following() {
		m.newCount = a.cur.ahead()
		if last, ok := a.an.Frames().Last(); ok {
			m.behind = last.Sample.Time.Sub(a.frame().Sample.Time)
		}
	}
	if !a.player.on() && !a.lastArrival.IsZero() {
		if since := a.now.Sub(a.lastArrival); since > a.staleAfter() {
			m.stale = since
		}
	}
	return m
}
