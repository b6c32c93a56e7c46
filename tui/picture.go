package tui

import (
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

// maxPictureFrames bounds an animated picture: a long recording is
// pictured every so often, not every sample.
const maxPictureFrames = 60

// Picture draws a recording as the console shows it in a cols × rows
// terminal, in colour, and returns it as an SVG: one frame for every
// `every` of recorded time (at most maxPictureFrames, the last frame
// always), shown one after the other for a second each, or a still of
// the last frame when every is 0. The README's and the manual's
// pictures are made this way, so they are the program's own frames.
func Picture(feed model.Feed, o Options, cols, rows int, every time.Duration) ([]byte, error) {
	lipgloss.SetColorProfile(termenv.TrueColor) // a picture is in colour, whatever the terminal it was made in
	o.Speed = 1                                 // a playback: REPLAY in the header, the cursor moved below
	if o.History <= 0 {
		o.History = diagnose.HistoryFor(24*time.Hour, time.Second)
	}
	a := New(feed, o)
	a.Update(tea.WindowSizeMsg{Width: cols, Height: rows})
	for {
		s, err := feed.Next()
		if model.FeedEnded(err) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("picture: %w", err)
		}
		a.addSample(s)
	}
	if a.cur.seq == 0 {
		return nil, errors.New("picture: the recording holds no samples")
	}
	var shots []string
	var last time.Time
	first, newest := a.cur.oldest(), a.cur.newest()
	if span := a.frameTime(newest).Sub(a.frameTime(first)); every > 0 && span/every > maxPictureFrames {
		every = span / maxPictureFrames
	}
	for i := first; i <= newest; i++ {
		at := a.frameTime(i)
		if i != newest && (every <= 0 || i != first && at.Sub(last) < every) {
			continue
		}
		last = at
		a.cur.moveTo(i, false)
		a.cur.paused = i == newest
		a.rendered = ""
		shots = append(shots, a.View())
	}
	return svgOf(shots, cols, rows, time.Second), nil
}

// frameTime is the sample time of frame i.
func (a *App) frameTime(i int) time.Time {
	f, _ := a.frameAt(i)
	return f.Sample.Time
}

// PictureRequest is --svg: a recording drawn to an SVG file instead of
// played (Picture), a frame every Every of recorded time.
type PictureRequest struct {
	File  string
	Every time.Duration
}

// AddFlags adds --svg and --svg-every to fs.
func (p *PictureRequest) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&p.File, "svg", "", "draw the recording as the console shows it to an animated SVG `FILE` (100×32) instead of playing it")
	fs.DurationVar(&p.Every, "svg-every", 5*time.Second, "with --svg: a frame every `D` of recorded time (0: a still of the last frame)")
}

// Draw draws feed as p asks, for the caller to write to p.File (which
// refuses links: tui writes no file).
func (p PictureRequest) Draw(feed model.Feed, o Options) ([]byte, error) {
	return Picture(feed, o, 100, 32, p.Every)
}
