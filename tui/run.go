package tui

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

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
// quits. SIGTERM (bubbletea's own) and SIGHUP (the terminal closed, the
// SSH session to the jump host dropped) quit it as q does: the terminal
// restored where there still is one, and the caller's deferred stops end
// every remote command.
//
// It draws 10 frames a second, which is still instant to a key: wake-ups
// dominate the console's CPU (about 175 µs each on a small VM, measured
// for make bench), so the caller runs it on one P where nothing else in
// the process needs more (cmd's longRunning, from the process's start).
func Run(m tea.Model) error { return RunFor(m, 0) }

// RunFor is Run that also quits, as q does, once d has passed (0: never):
// a lab's --duration.
func RunFor(m tea.Model, d time.Duration) error {
	var until <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		until = t.C
	}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithFPS(10))
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	done := make(chan struct{})
	defer close(done)
	var hungUp atomic.Bool
	go func() {
		select {
		case <-hup:
			hungUp.Store(true)
			p.Quit()
		case <-until:
			p.Quit()
		case <-done:
		}
	}()
	if _, err := p.Run(); err != nil && !hungUp.Load() { // a hung-up terminal fails its last writes
		return fmt.Errorf("console: %w", err)
	}
	return nil
}
