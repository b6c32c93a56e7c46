package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/knob"
)

// Recorder starts and stops recording the feed to a file.
type Recorder interface {
	Toggle() (path string, on bool, err error)
	// Tuned keeps a tuning action ("apply", "undo") and its read-back in
	// the recording, when one runs.
	Tuned(action string, at time.Time, results []knob.Result) error
	// Deleted keeps a deletion of entries (D) and what it did in the
	// recording, when one runs.
	Deleted(at time.Time, filter entry.Filter, d entry.Deletion, failed error) error
}

// sampleMsg carries one sample from feed id.
type sampleMsg struct {
	id int
	s  model.Sample
}

// feedErrMsg reports that feed id failed; it is shown, not fatal.
type feedErrMsg struct {
	id  int
	err error
}

// tickMsg refreshes time-dependent parts (staleness, a live status).
type tickMsg struct{ id int }

// playMsg advances a playback by one frame.
type playMsg struct{ id int }

// recordMsg reports a recording started or stopped.
type recordMsg struct {
	id   int
	path string
	on   bool
	err  error
}

// waitForSampleCmd blocks on the feed for one sample.
func waitForSampleCmd(id int, f model.Feed) tea.Cmd {
	return func() tea.Msg {
		s, err := f.Next()
		if err != nil {
			return feedErrMsg{id, err}
		}
		return sampleMsg{id, s}
	}
}

func tickCmd(id int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{id} })
}

func playCmd(id int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return playMsg{id} })
}

// setIntervalCmd asks the feed for a new interval (a remote feed writes
// to its agent: I/O, so not in Update).
func setIntervalCmd(s model.IntervalSetter, d time.Duration) tea.Cmd {
	return func() tea.Msg { s.SetInterval(d); return nil }
}

func setCensusCmd(s model.CensusSetter, on bool) tea.Cmd {
	return func() tea.Msg { s.SetCensus(on); return nil }
}

func toggleRecordCmd(id int, r Recorder) tea.Cmd {
	return func() tea.Msg {
		path, on, err := r.Toggle()
		return recordMsg{id, path, on, err}
	}
}
