package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"time"

	"github.com/tablefull/tablefull/model"
)

// Feed delivers samples to the console: the local collector, a remote
// agent, a recording or the demo.
type Feed interface {
	// Host describes where the samples come from.
	Host() model.Host
	// Next blocks for the next sample.
	Next() (model.Sample, error)
}

// IntervalSetter is a Feed whose sampling interval can change.
type IntervalSetter interface {
	SetInterval(d time.Duration)
}

// sampleMsg carries one sample from the feed.
type sampleMsg model.Sample

// feedErrMsg reports that the feed failed; it is shown, not fatal.
type feedErrMsg struct{ err error }

// waitForSampleCmd blocks on the feed for one sample.
func waitForSampleCmd(f Feed) tea.Cmd {
	return func() tea.Msg {
		s, err := f.Next()
		if err != nil {
			return feedErrMsg{err}
		}
		return sampleMsg(s)
	}
}
