package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// TestQuietTickKeepsScreen: a tick that changes nothing on screen reuses
// the last View; one that turns the feed stale redraws, and from then on
// the clock ticks every second.
func TestQuietTickKeepsScreen(t *testing.T) {
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	a.Update(sampleMsg{a.id, incident(1)[0]})
	first := a.View()
	if a.rendered == "" {
		t.Fatal("View did not keep what it rendered")
	}
	if d := a.nextTick(); d < 4*time.Second || d > 5*time.Second {
		t.Errorf("fresh feed at 1 s: next tick in %v, want just before it could turn stale (5 s)", d)
	}
	a.Update(tickMsg{a.id})
	if a.rendered == "" || a.View() != first {
		t.Errorf("a quiet tick redrew the screen")
	}
	a.lastArrival = time.Now().Add(-42 * time.Second)
	a.Update(tickMsg{a.id})
	if !strings.Contains(a.View(), "STALE 42 s") {
		t.Errorf("stale feed not shown after a tick:\n%s", a.View())
	}
	if d := a.nextTick(); d != time.Second {
		t.Errorf("stale feed: next tick in %v, want 1s (the STALE time counts up)", d)
	}
	a.Update(sampleMsg{a.id, incident(2)[1]})
	if strings.Contains(a.View(), "STALE") {
		t.Errorf("a new sample did not redraw the screen")
	}
	lab := New(newScriptFeed(t, nil), Options{Live: func() string { return "clients waiting 3" }})
	if d := lab.nextTick(); d != time.Second {
		t.Errorf("with a live status: next tick in %v, want 1s", d)
	}
}

// TestKernelPanelFollowsNewLines: the kernel log panel is remembered
// between frames, but a line that arrives shows on the next screen.
func TestKernelPanelFollowsNewLines(t *testing.T) {
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	samples := incident(11) // the table-full line comes with the 11th
	for _, s := range samples[:10] {
		a.Update(sampleMsg{a.id, s})
	}
	if v := a.View(); !strings.Contains(v, `no "table full" lines`) {
		t.Fatalf("before the line:\n%s", v)
	}
	a.Update(sampleMsg{a.id, samples[10]})
	if v := a.View(); !strings.Contains(v, "table full") || strings.Contains(v, `no "table full" lines`) {
		t.Errorf("the new kernel line is not on screen:\n%s", v)
	}
}
