package main

import (
	"fmt"
	"os"

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
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return err
	}
	live := sources.NewLive(c, o.interval)
	defer live.Stop()
	p := tea.NewProgram(tui.New(live, o.interval), tea.WithAltScreen())
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}
