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
	"github.com/tablefull/tablefull/model/verdict"
)

// maxPictureFrames bounds an animated picture: a long recording is
// pictured every so often, not every sample.
const maxPictureFrames = 60

// Picture draws a recording as the console shows it in a cols × rows
// terminal, in colour, and returns it as an SVG: PictureFrames shown one
// after the other for a second each. The README's and the manual's
// pictures are made this way, so they are the program's own frames.
func Picture(feed model.Feed, o Options, cols, rows int, every time.Duration) ([]byte, error) {
	shots, err := PictureFrames(feed, o, cols, rows, every)
	if err != nil {
		return nil, err
	}
	return svgOf(shots, cols, rows, time.Second), nil
}

// PictureFrames are a recording's screens as the console draws them in
// a cols × rows terminal, in colour: from the frame its incident begins
// on (the first of its worst severity; the first frame when all are OK), one for
// every `every` of recorded time (at most maxPictureFrames) and the last
// always; or the last alone when every is 0.
func PictureFrames(feed model.Feed, o Options, cols, rows int, every time.Duration) ([]string, error) {
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
	first, newest := a.incidentBegins(), a.cur.newest()
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
	return shots, nil
}

// incidentBegins is the first frame of the recording's worst severity,
// the oldest when every frame is OK: a picture opens on the incident, not
// on the quiet or the warning before it (the chart still shows the climb).
func (a *App) incidentBegins() int {
	begins, worst := a.cur.oldest(), verdict.SevOK
	for i := a.cur.oldest(); i <= a.cur.newest(); i++ {
		if f, ok := a.frameAt(i); ok && f.Verdict().Severity > worst {
			begins, worst = i, f.Verdict().Severity
		}
	}
	return begins
}

// PlaybackOptions are a recording's console options: at its interval,
// with one hour of history around the view (a longer recording is read
// as the view moves on).
func PlaybackOptions(interval time.Duration, speed float64, captions bool) Options {
	return Options{Interval: interval, Speed: speed, Captions: captions, History: diagnose.HistoryFor(time.Hour, interval)}
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
