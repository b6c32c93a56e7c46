package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/tui"
)

// replay plays a recording in the console.
func replay(path string, speed float64, pic tui.PictureRequest, stdout io.Writer) error {
	feed, err := recording.OpenReplay(path, "replay "+path)
	if err != nil {
		return err
	}
	return play(feed, speed, false, pic, stdout)
}

// demo plays the embedded incident with captions.
func demo(speed float64, pic tui.PictureRequest, stdout io.Writer) error {
	feed, err := recording.Demo()
	if err != nil {
		return err
	}
	return play(feed, speed, true, pic, stdout)
}

// play shows a recording, one hour of history around the view (a longer
// recording is read as the view moves on).
func play(feed *recording.Replay, speed float64, captions bool, pic tui.PictureRequest, stdout io.Writer) error {
	longRunning()
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
	f, err := recording.CreateFile(pic.File, true)
	if err != nil {
		return fmt.Errorf("write the picture: %w", err)
	}
	_, err = f.Write(svg)
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("write the picture: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", pic.File)
	return nil
}

// writeReport turns a recording (or the embedded demo) into report.html,
// report.md and its charts.
func writeReport(v *flagValues, stdout io.Writer) error {
	if v.report.Demo && v.arg != "" {
		return usageError{errors.New("give FILE or --demo, not both")}
	}
	rq := v.report
	rq.File = v.arg
	return rq.Run(stdout)
}
