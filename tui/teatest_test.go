package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// TestProgram runs the whole console as a bubbletea program: samples
// arrive through the feed command, keys through the input.
func TestProgram(t *testing.T) {
	feed := newScriptFeed(t, incident(21))
	tm := teatest.NewTestModel(t, NewRoot(New(feed, Options{Interval: time.Second})), teatest.WithInitialTermSize(80, 24))
	waitFor := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	waitFor("TABLE FULL")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")})
	waitFor("PAUSED")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	waitFor("next change")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(3*time.Second)).(*Root).apps[0]
	if k := final.frame().Verdict().Kind; k != "TABLE FULL" {
		t.Errorf("final verdict %q, want TABLE FULL", k)
	}
	if v := final.View(); !strings.Contains(v, "PAUSED") || !strings.Contains(v, "episode") {
		t.Errorf("final screen:\n%s", v)
	}
}
