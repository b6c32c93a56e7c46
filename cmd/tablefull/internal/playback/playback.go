// Package playback is what tablefull does with recordings, reading no
// host: replay and demo play one in the console (or draw it to an SVG),
// report writes its post-mortem and compare sets recordings side by side.
package playback

import (
	"errors"
	"fmt"
	"io"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/report"
	"github.com/tablefull/tablefull/tui"
)

// Replay plays a recording in the console.
func Replay(path string, speed float64, pic tui.PictureRequest, stdout io.Writer) error {
	feed, err := recording.OpenReplay(path, "replay "+path)
	if err != nil {
		return err
	}
	return play(feed, speed, false, pic, stdout)
}

// Demo plays the embedded incident with captions.
func Demo(speed float64, pic tui.PictureRequest, stdout io.Writer) error {
	feed, err := recording.Demo()
	if err != nil {
		return err
	}
	return play(feed, speed, true, pic, stdout)
}

// play shows a recording, one hour of history around the view (a longer
// recording is read as the view moves on).
func play(feed *recording.Replay, speed float64, captions bool, pic tui.PictureRequest, stdout io.Writer) error {
	defer feed.Stop()
	first, ok := feed.First()
	if !ok {
		return fmt.Errorf("%s: the recording holds no samples", feed.Host().Source)
	}
	o := tui.PlaybackOptions(first.Interval, speed, captions)
	if pic.File != "" {
		return writePicture(feed, o, pic, stdout)
	}
	app := tui.New(feed, o)
	return tui.Run(tui.NewRoot(app))
}

// writePicture draws feed to pic.File: a regular file, replaced if it is
// one, never written through a symlink or into a FIFO or device; it says
// what it wrote, as report does.
func writePicture(feed *recording.Replay, o tui.Options, pic tui.PictureRequest, stdout io.Writer) error {
	svg, err := pic.Draw(feed, o)
	if err != nil {
		return err
	}
	if err := recording.WriteFile(pic.File, svg, true); err != nil {
		return fmt.Errorf("write the picture: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", pic.File)
	return nil
}

// Report turns a recording (file, or the embedded demo) into
// report.html, report.md and its charts.
func Report(rq report.Request, file string, stdout io.Writer) error {
	if rq.Demo && file != "" {
		return usage(errors.New("give FILE or --demo, not both"))
	}
	rq.File = file
	return rq.Run(stdout)
}

// Compare sets the sides' recordings, specs, side by side.
func Compare(q report.CompareRequest, specs []string, stdout io.Writer) error {
	q.Specs = specs
	if err := q.Check(); err != nil {
		return usage(err)
	}
	return q.Run(stdout)
}

// usage is a bad command line: exit 2.
func usage(err error) error { return exitcode.Error{Code: 2, Err: err} }
