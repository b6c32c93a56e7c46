package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/tui"
)

// replay plays a recording in the console.
func replay(path string, speed float64) error {
	feed, err := remote.OpenReplay(path, "replay "+path)
	if err != nil {
		return err
	}
	return play(feed, speed, false)
}

// demoRecording is a real table-full incident recorded on this kind of
// machine (see README: how to re-record it).
//
//go:embed demo/table-full.jsonl
var demoRecording []byte

// demo plays the embedded incident with captions.
func demo(speed float64) error {
	rec, err := remote.ReadRecording(bytes.NewReader(demoRecording))
	if err != nil {
		return fmt.Errorf("embedded demo: %w", err)
	}
	return play(remote.NewReplay(rec, "demo"), speed, true)
}

// play shows a recording, one hour of history around the view (a longer
// recording is read as the view moves on).
func play(feed *remote.Replay, speed float64, captions bool) error {
	defer feed.Stop()
	first, ok := feed.First()
	if !ok {
		return fmt.Errorf("%s: the recording holds no samples", feed.Host().Source)
	}
	app := tui.New(feed, tui.Options{Interval: first.Interval, Speed: speed, Captions: captions,
		History: model.HistoryFor(time.Hour, first.Interval)})
	return tui.Run(tui.NewRoot(app))
}
