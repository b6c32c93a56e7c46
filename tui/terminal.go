package tui

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// terminal is what a console does to the terminal that bubbletea, run
// without its renderer, leaves undone: raw keys, the alternate screen,
// the cursor hidden, bracketed paste, and the size on start and on each
// SIGWINCH.
type terminal struct {
	in, out *os.File
	ownIn   bool // in is /dev/tty, opened here
	raw     *term.State
	once    sync.Once
}

// openTerminal readies the terminal: keys from standard input, or from
// /dev/tty when input is redirected (as bubbletea does), the screen on
// standard output.
func openTerminal() (*terminal, error) {
	t := &terminal{in: os.Stdin, out: os.Stdout}
	if !term.IsTerminal(t.in.Fd()) {
		f, err := os.Open("/dev/tty")
		if err != nil {
			return nil, fmt.Errorf("open the terminal for keys: %w", err)
		}
		t.in, t.ownIn = f, true
	}
	raw, err := term.MakeRaw(t.in.Fd())
	if err != nil {
		t.close()
		return nil, fmt.Errorf("enter raw mode: %w", err)
	}
	t.raw = raw
	_, _ = t.out.WriteString(ansi.SetModeAltScreenSaveCursor + ansi.EraseEntireScreen +
		ansi.CursorHomePosition + ansi.HideCursor + ansi.SetModeBracketedPaste)
	return t, nil
}

// watchSize sends p the terminal's size now and after each resize until
// done closes. Without a size (output is not a terminal) it sends none.
func (t *terminal) watchSize(p *tea.Program, done <-chan struct{}) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		defer signal.Stop(winch)
		for {
			if w, h, err := term.GetSize(t.out.Fd()); err == nil {
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
			select {
			case <-done:
				return
			case <-winch:
			}
		}
	}()
}

// close gives the terminal back as it was found; once, however often
// it is called (a panic, then the deferred close).
func (t *terminal) close() { t.once.Do(t.giveBack) }

func (t *terminal) giveBack() {
	if t.raw != nil {
		_, _ = t.out.WriteString(ansi.ResetModeBracketedPaste + ansi.ShowCursor + ansi.ResetModeAltScreenSaveCursor)
		_ = term.Restore(t.in.Fd(), t.raw) // a hung-up terminal cannot be restored, nor needs to be
	}
	if t.ownIn {
		_ = t.in.Close()
	}
}
