package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/tablefull/tablefull/model/story"
)

// playStep is the wall time between two frames of a playback.
func (a *App) playStep() time.Duration {
	iv := a.frame().Sample.Interval
	if iv <= 0 {
		iv = a.interval
	}
	return max(20*time.Millisecond, time.Duration(float64(iv)/a.opts.Speed))
}

// play advances a playback by one frame and schedules the next.
func (a *App) play() tea.Cmd {
	if a.cur.paused {
		return nil
	}
	if a.cur.at() < a.cur.newest() {
		a.moveTo(a.cur.at() + 1)
	} else if a.cur.seq > 0 && a.player.ended { // played out: it stops there, as a player does
		a.cur.pause()
		a.status.say(endOfRecording)
		return nil
	}
	return playCmd(a.id, a.playStep())
}

// endOfRecording is said when a playback stops at its last frame, until
// the view leaves it.
const endOfRecording = "end of recording: ← to look back (to its first frame), p to play from there"

// nextChange is the next frame after the view where the verdict changes
// or a pinned episode starts or ends; the last frame when none does.
func (a *App) nextChange() int {
	cur, ok := a.frameAt(a.cur.at())
	if !ok {
		return a.cur.at()
	}
	for i := a.cur.at() + 1; i < a.cur.seq; i++ {
		f, _ := a.frameAt(i)
		if f.Verdict().Kind != cur.Verdict().Kind || f.Pinned != cur.Pinned {
			return i
		}
	}
	return a.cur.newest()
}

// captionFrames is how many frames a caption stays on screen.
const captionFrames = 6

// noteCaption picks up the caption of the frame now on screen.
func (a *App) noteCaption() {
	if !a.opts.Captions {
		return
	}
	i := a.cur.at()
	prev, ok1 := a.frameAt(i - 1)
	cur, ok2 := a.frameAt(i)
	if !ok1 || !ok2 {
		return
	}
	if c := story.Caption(prev, cur); c != "" {
		a.caption, a.captionAt, a.captionKind = c, i, cur.Verdict().Kind
	}
}

// captionLine is the caption to show, if one is fresh.
func (a *App) captionLine() string {
	if !a.opts.Captions {
		return ""
	}
	cur, _ := a.frameAt(a.cur.at())
	if a.player.ended && a.cur.at() == a.cur.newest() { // the last frame of a recording has its own
		return story.EndCaption(cur)
	}
	// A caption stands on the frames it was said of: a few, while their
	// verdict holds.
	if d := a.cur.at() - a.captionAt; a.caption == "" || d < 0 || d >= captionFrames || cur.Verdict().Kind != a.captionKind {
		return ""
	}
	return a.caption
}

// wantMore asks the feed for the next sample, unless a playback already
// holds what it needs. A recording is read ahead of the view only while
// the history has room or the view is within its last quarter: a
// 12-hour recording is never loaded whole, and the view can always go
// three quarters of the history back.
func (a *App) wantMore() tea.Cmd {
	a.player.waiting = false
	if a.player.ended {
		return nil
	}
	if a.player.on() && a.cur.seq >= a.opts.History && a.cur.ahead() >= a.opts.History/4 {
		return nil
	}
	a.player.waiting = true
	return waitForSampleCmd(a.id, a.feed)
}

// resume re-arms reading a playback once the view has moved on.
func (a *App) resume() tea.Cmd {
	if a.player.waiting || !a.player.on() {
		return nil
	}
	return a.wantMore()
}
