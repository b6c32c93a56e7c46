package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model/knob"
)

// TestOneBottomPanel: the census, the namespaces and the tuning panel
// take the bottom of the screen one at a time; leaving the census for
// another panel stops the feed's census walk, and coming back starts it.
func TestOneBottomPanel(t *testing.T) {
	feed := &censusFeed{scriptFeed: newScriptFeed(t, nil)}
	tu := &fakeTuner{values: map[string]string{knob.Max: "4096"}}
	a := New(feed, Options{Interval: time.Second, Tuner: tu})
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for _, s := range incident(5) {
		a.Update(sampleMsg{s: s})
	}
	for _, step := range []struct {
		key      string
		panel    bottomPanel
		censusOn bool
	}{
		{"c", panelCensus, true},
		{"N", panelNamespaces, false},
		{"c", panelCensus, true},
		{"t", panelTuning, false},
		{"N", panelNamespaces, false},
		{"N", panelNone, false},
		{"c", panelCensus, true},
		{"c", panelNone, false},
	} {
		runAll(a, typed(step.key))
		if a.panel != step.panel || feed.on != step.censusOn {
			t.Fatalf("after %q: panel %d, census walk %v; want %d, %v", step.key, a.panel, feed.on, step.panel, step.censusOn)
		}
	}
}
