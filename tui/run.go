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
// bubbletea reads the keys and runs the model; the painter draws each
// frame as it changes, so a console at rest wakes only for its samples
// (wake-ups dominate its CPU at rest; docs/development.md has what make
// bench measured). The caller runs it on one P (cmd's longRunning).
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
	term, err := openTerminal()
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	defer term.close()
	paint := newPainter(term.out)
	defer paint.stop()
	giveBack := func() { paint.halt(); term.close() } // a panic: no frame after it, its text on the screen
	p := tea.NewProgram(painted{m, paint, giveBack}, tea.WithoutRenderer(), tea.WithInput(term.in))
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	done := make(chan struct{})
	defer close(done)
	term.watchSize(p, done)
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
