package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// stillPainter is a painter without its goroutine: the test paints.
func stillPainter(out *bytes.Buffer, width, height int) *painter {
	p := &painter{out: out, fresh: true, wake: make(chan struct{}, 1)}
	p.resize(width, height)
	return p
}

// TestPaintDiffs: the first frame is drawn whole on a cleared screen;
// after that only lines that changed are written, the rest skipped with a
// line feed; an unchanged frame writes nothing.
func TestPaintDiffs(t *testing.T) {
	var out bytes.Buffer
	p := stillPainter(&out, 10, 5)
	p.frame("a\nb\nc")
	p.paint()
	home, clear, erase := ansi.CursorHomePosition, ansi.EraseEntireScreen, ansi.EraseLineRight
	end := ansi.CursorPosition(0, 3)
	want := home + clear + "a" + erase + "\r\n" + "b" + erase + "\r\n" + "c" + erase + end
	if got := out.String(); got != want {
		t.Errorf("first frame:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	p.frame("a\nX\nc")
	p.paint()
	if got, want := out.String(), home+"\n"+"X"+erase+"\r\n"+end; got != want {
		t.Errorf("one line changed:\n got %q\nwant %q", got, want)
	}
	out.Reset()
	p.frame("a\nX\nc")
	p.paint()
	if out.Len() != 0 {
		t.Errorf("an unchanged frame wrote %q", out.String())
	}
	p.frame("a")
	p.paint()
	if got, want := out.String(), home+ansi.EraseScreenBelow+ansi.CursorPosition(0, 1); got != want {
		t.Errorf("a shorter frame:\n got %q\nwant %q", got, want)
	}
}

// TestPaintFitsTheTerminal: lines are cut to the width (a full line is
// not followed by an erase, which would blank its last cell), a frame
// taller than the terminal loses its top lines, and a resize redraws
// every line.
func TestPaintFitsTheTerminal(t *testing.T) {
	var out bytes.Buffer
	p := stillPainter(&out, 4, 2)
	p.frame("top\nabcdefgh\nxy")
	p.paint()
	want := ansi.CursorHomePosition + ansi.EraseEntireScreen + "abcd" + "\r\n" + "xy" + ansi.EraseLineRight + ansi.CursorPosition(0, 2)
	if got := out.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	out.Reset()
	p.resize(8, 2)
	p.paint()
	if got := out.String(); !strings.Contains(got, "abcdefgh") || !strings.Contains(got, "xy") || !strings.Contains(got, ansi.EraseEntireScreen) {
		t.Errorf("after a resize the frame was not redrawn whole: %q", got)
	}
}

// countingWriter counts writes and keeps the last.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	last   string
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	w.last = string(b)
	return len(b), nil
}

// TestPaintCoalescesBursts: a burst of frames is a write or two, the last
// frame among them; stop draws a frame handed over after the last write.
func TestPaintCoalescesBursts(t *testing.T) {
	w := &countingWriter{}
	p := newPainter(w)
	p.resize(20, 5)
	start := time.Now()
	for i := range 200 {
		p.frame(fmt.Sprintf("frame %d", i))
	}
	burst := time.Since(start) // a loaded machine may stretch it: a write per gap is allowed
	time.Sleep(3 * minPaintGap)
	w.mu.Lock()
	writes, last := w.writes, w.last
	w.mu.Unlock()
	if allowed := 3 + int(burst/minPaintGap); writes > allowed {
		t.Errorf("200 frames in a burst of %v took %d writes, want at most %d", burst, writes, allowed)
	}
	if !strings.Contains(last, "frame 199") {
		t.Errorf("the last write was not the last frame: %q", last)
	}
	p.frame("goodbye")
	p.stop()
	if !strings.Contains(w.last, "goodbye") {
		t.Errorf("stop did not draw the last frame: %q", w.last)
	}
	halted := newPainter(w)
	halted.frame("first")
	time.Sleep(3 * minPaintGap)
	halted.halt()
	halted.frame("after the terminal was given back")
	halted.stop()
	if strings.Contains(w.last, "given back") {
		t.Errorf("a frame was drawn after halt: %q", w.last)
	}
}

// TestPaintedHandsFramesToThePainter: bubbletea is given nothing to draw;
// the painter gets each View and each size.
func TestPaintedHandsFramesToThePainter(t *testing.T) {
	var out bytes.Buffer
	p := stillPainter(&out, 0, 0)
	var m tea.Model = painted{fixedView("hello"), p, func() {}}
	m, _ = m.Update(tea.WindowSizeMsg{Width: 30, Height: 7})
	if v := m.View(); v != "" {
		t.Errorf("bubbletea was given %q to draw", v)
	}
	if p.width != 30 || p.height != 7 || p.next != "hello" {
		t.Errorf("painter has %d×%d and %q, want 30×7 and the view", p.width, p.height, p.next)
	}
}

type fixedView string

func (v fixedView) Init() tea.Cmd                       { return nil }
func (v fixedView) Update(tea.Msg) (tea.Model, tea.Cmd) { return v, nil }
func (v fixedView) View() string                        { return string(v) }

// TestPaintedRestoresOnPanic: a panic in the model gives the terminal back
// before it goes on to bubbletea, which prints it (on the alternate
// screen it would vanish).
func TestPaintedRestoresOnPanic(t *testing.T) {
	var out bytes.Buffer
	restored := 0
	m := painted{panicky{}, stillPainter(&out, 0, 0), func() { restored++ }}
	for name, call := range map[string]func(){
		"Init":   func() { m.Init() },
		"Update": func() { m.Update(tea.KeyMsg{}) },
		"View":   func() { m.View() },
	} {
		restored = 0
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("%s: panic %v went on, want boom", name, r)
				}
			}()
			call()
		}()
		if restored != 1 {
			t.Errorf("%s: the terminal was given back %d times, want 1", name, restored)
		}
	}
}

type panicky struct{}

func (panicky) Init() tea.Cmd                       { panic("boom") }
func (panicky) Update(tea.Msg) (tea.Model, tea.Cmd) { panic("boom") }
func (panicky) View() string                        { panic("boom") }
