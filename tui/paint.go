package tui

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// minPaintGap is the least time between two writes to the terminal: the
// frames of a burst of messages (a held key, a fleet's hosts arriving
// together) are drawn as one.
const minPaintGap = time.Second / 30

// painter draws the console's frames when they change, not on a clock.
// bubbletea v1's renderer flushes on a ticker, and at rest those wake-ups
// were most of the console's CPU: an idle bubbletea program at its frame
// rate cost as much as htop at a 1 s refresh (docs/development.md has
// what make bench measured). The painter's goroutine sleeps
// until a new frame is handed to it, writes only the lines that differ
// from the screen, and waits out minPaintGap after a write only when the
// next frame comes sooner.
type painter struct {
	out io.Writer

	mu     sync.Mutex
	next   string // the latest frame
	width  int    // the terminal's, 0 while unknown
	height int
	fresh  bool // the screen is not what was painted: draw every line

	wake    chan struct{}
	done    chan struct{}
	ended   sync.Once // closes done
	stopped chan struct{}

	// Owned by the painting goroutine (by stop once it has ended).
	painted string   // the frame on the screen
	shown   []string // its lines
	wrote   time.Time
	buf     bytes.Buffer
}

// newPainter starts a painter that writes to out.
func newPainter(out io.Writer) *painter {
	p := &painter{out: out, fresh: true, wake: make(chan struct{}, 1),
		done: make(chan struct{}), stopped: make(chan struct{})}
	go p.run()
	return p
}

// frame hands the painter the screen as it should be now.
func (p *painter) frame(s string) {
	if s == "" {
		s = " " // an empty view still clears the screen
	}
	p.mu.Lock()
	changed := s != p.next
	p.next = s
	p.mu.Unlock()
	if changed {
		p.poke()
	}
}

// resize tells the painter the terminal's size; the next frame is drawn
// whole.
func (p *painter) resize(width, height int) {
	p.mu.Lock()
	p.width, p.height, p.fresh = width, height, true
	p.mu.Unlock()
	p.poke()
}

func (p *painter) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop ends the painting goroutine and draws the last frame handed over,
// unless halt came first.
func (p *painter) stop() {
	if p.end() {
		p.paint()
	}
}

// halt ends the painting goroutine, leaving the screen as it is: the
// terminal is being given back (a panic), and no frame may follow.
func (p *painter) halt() { p.end() }

// end ends the painting goroutine; true the first time.
func (p *painter) end() bool {
	first := false
	p.ended.Do(func() { first = true; close(p.done) })
	<-p.stopped
	return first
}

func (p *painter) run() {
	defer close(p.stopped)
	for {
		select {
		case <-p.done:
			return
		case <-p.wake:
		}
		if wait := minPaintGap - time.Since(p.wrote); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-p.done:
				t.Stop()
				return
			case <-t.C:
			}
		}
		p.paint()
	}
}

// paint writes the latest frame: from the top left, each line that
// differs from the one on the screen (cut to the width, the rest of the
// row erased), the others skipped with a line feed, and what is below a
// shorter frame erased. When the frame is taller than the terminal, its
// top lines are left out, as bubbletea's renderer does.
func (p *painter) paint() {
	p.mu.Lock()
	frame, width, height, fresh := p.next, p.width, p.height, p.fresh
	p.fresh = false
	p.mu.Unlock()
	if frame == "" || (frame == p.painted && !fresh) {
		return
	}
	lines := strings.Split(frame, "\n")
	if height > 0 && len(lines) > height {
		lines = lines[len(lines)-height:]
	}
	b := &p.buf
	b.Reset()
	b.WriteString(ansi.CursorHomePosition)
	if fresh {
		b.WriteString(ansi.EraseEntireScreen)
	}
	for i, line := range lines {
		last := i == len(lines)-1
		if !fresh && i < len(p.shown) && p.shown[i] == line {
			if !last {
				b.WriteByte('\n')
			}
			continue
		}
		if width > 0 {
			line = ansi.Truncate(line, width, "")
		}
		b.WriteString(line)
		if width == 0 || ansi.StringWidth(line) < width {
			b.WriteString(ansi.EraseLineRight) // at the last column it would erase that cell
		}
		if !last {
			b.WriteString("\r\n")
		}
	}
	if !fresh && len(p.shown) > len(lines) {
		b.WriteString(ansi.EraseScreenBelow)
	}
	b.WriteString(ansi.CursorPosition(0, len(lines)))
	_, _ = p.out.Write(b.Bytes()) // a terminal gone (SIGHUP) fails its writes; the program is quitting
	p.painted, p.shown, p.wrote = frame, lines, time.Now()
}

// painted is a console's model as bubbletea runs it (without a renderer
// of its own): each View is handed to the painter, and each size to both.
// A panic in the model gives the terminal back (restore) before bubbletea
// prints it: printed on the alternate screen, it would vanish with it.
type painted struct {
	m       tea.Model
	p       *painter
	restore func()
}

// Init implements tea.Model.
func (w painted) Init() tea.Cmd {
	defer w.restoreOnPanic()
	return w.m.Init()
}

// Update implements tea.Model: the painter learns the size, the model
// gets every message.
func (w painted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	defer w.restoreOnPanic()
	if s, ok := msg.(tea.WindowSizeMsg); ok {
		w.p.resize(s.Width, s.Height)
	}
	m, cmd := w.m.Update(msg)
	w.m = m
	return w, cmd
}

// View implements tea.Model: the frame goes to the painter; bubbletea,
// running without a renderer, is given nothing to draw.
func (w painted) View() string {
	defer w.restoreOnPanic()
	w.p.frame(w.m.View())
	return ""
}

// restoreOnPanic, deferred, gives the terminal back and panics on.
func (w painted) restoreOnPanic() {
	if r := recover(); r != nil {
		w.restore()
		panic(r)
	}
}
