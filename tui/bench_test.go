package tui

import (
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/tui/chart"
	"github.com/tablefull/tablefull/tui/styles"
)

// paneColours sets what a tmux pane (TERM=tmux-256color) gives the
// console, so the benchmarks pay for colour like the console does.
func paneColours(b *testing.B) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	lipgloss.SetHasDarkBackground(true)
	b.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
}

// BenchmarkChartRebuild is the per-sample chart cost at 200×30.
func BenchmarkChartRebuild(b *testing.B) {
	paneColours(b)
	a := New(newScriptFeed(&testing.T{}, nil), Options{})
	for _, s := range incident(300) {
		a.an.Add(s)
		a.cur.add(a.an.Frames().Len())
	}
	st := styles.DefaultStyles()
	frames := a.window(190)
	var c chart.Chart
	for i := 0; b.Loop(); i++ { // frames[i%2:]: new data every sample
		c.Rebuild(st, frames[i%2:], 200, 17, time.Time{})
	}
}

// BenchmarkView is one full screen at 200×50, as after every message.
func BenchmarkView(b *testing.B) {
	paneColours(b)
	a := New(newScriptFeed(&testing.T{}, nil), Options{})
	a.resize(200, 50)
	for _, s := range incident(300) {
		a.addSample(s)
	}
	for b.Loop() {
		_ = a.render() // View would return its cache
	}
}
