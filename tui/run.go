package tui

import (
	"fmt"
	"os"
	"runtime"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// HonourNoColor turns colour off when NO_COLOR is set, even to "" (the
// convention says present, termenv wants non-empty). It runs before any
// console is built: styles resolve their colours when they are made.
func HonourNoColor() {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
}

// Run runs a full-screen console (NewRoot's tabs, or the fleet) until it
// quits.
func Run(m tea.Model) error {
	// Wake-ups dominate the console's CPU (about 175 µs each on a small
	// VM, measured for make bench): one P, so a wake-up does not also wake
	// idle threads, and 10 frames a second, which is still instant to a key.
	runtime.GOMAXPROCS(1)
	if _, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithFPS(10)).Run(); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}
