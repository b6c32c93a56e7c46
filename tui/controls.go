package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
)

// The console's controls of its feed: record, pause, interval, census.

func (a *App) toggleRecord() tea.Cmd {
	if a.opts.Recorder == nil {
		a.status.say("this feed cannot be recorded")
		return nil
	}
	return toggleRecordCmd(a.id, a.opts.Recorder)
}

func (a *App) togglePause() tea.Cmd {
	if a.player.on() { // playback: pause or go on playing from here
		a.cur.paused = !a.cur.paused
		if !a.cur.paused {
			return playCmd(a.id, a.playStep())
		}
		return nil
	}
	if a.cur.paused {
		a.cur.live()
	} else {
		a.cur.pause()
	}
	return nil
}

func (a *App) stepInterval(dir int) tea.Cmd {
	if a.player.on() {
		a.status.say("a recording has a fixed interval")
		return nil
	}
	i := 0
	for i < len(Intervals)-1 && Intervals[i] < a.interval {
		i++
	}
	i = min(len(Intervals)-1, max(0, i+dir))
	a.interval = Intervals[i]
	s, ok := a.feed.(model.IntervalSetter)
	if !ok {
		a.status.say("this feed has a fixed interval")
		return nil
	}
	a.status.say("interval " + a.interval.String())
	return setIntervalCmd(s, a.interval)
}
