package main

import (
	"fmt"
	"os"
	"runtime"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/tui"
)

// console runs the full-screen console on the local host.
func console(o options) error {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	// Wake-ups dominate the console's CPU (about 175 µs each on a small
	// VM, measured for make bench): one P, so a wake-up does not also wake
	// idle threads, and 10 frames a second, which is still instant to a key.
	runtime.GOMAXPROCS(1)
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return err
	}
	live := sources.NewLive(c, o.interval)
	defer live.Stop()
	p := tea.NewProgram(tui.New(live, o.interval), tea.WithAltScreen(), tea.WithFPS(10))
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}
