package main

import (
	"fmt"
	"os"
	"runtime"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/tui"
)

// honourNoColor turns colour off when NO_COLOR is set, even to "" (the
// convention says present, termenv wants non-empty). It runs before any
// console is built: styles resolve their colours when they are made.
func honourNoColor() {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
}

// runConsole runs the full-screen console over apps.
func runConsole(apps []*tui.App) error {
	// Wake-ups dominate the console's CPU (about 175 µs each on a small
	// VM, measured for make bench): one P, so a wake-up does not also wake
	// idle threads, and 10 frames a second, which is still instant to a key.
	runtime.GOMAXPROCS(1)
	p := tea.NewProgram(tui.NewRoot(apps...), tea.WithAltScreen(), tea.WithFPS(10))
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}

// console opens the live console on this host or on the remotes named.
func console(o options, ssh, via, netns []string, deploy bool) error {
	apps, stop, err := feedsFor(o, ssh, via, netns, deploy)
	if err != nil {
		return err
	}
	defer stop()
	return runConsole(apps)
}
