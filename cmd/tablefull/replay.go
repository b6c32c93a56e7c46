package main

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/tablefull/tablefull/remote"
	"github.com/tablefull/tablefull/tui"
)

// replay plays a recording in the console.
func replay(path string, speed float64) error {
	rec, err := remote.ReadRecordingFile(path)
	if err != nil {
		return err
	}
	return play(rec, "replay "+path, speed, false)
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
	return play(rec, "demo", speed, true)
}

func play(rec *remote.Recording, source string, speed float64, captions bool) error {
	if len(rec.Samples) == 0 {
		return fmt.Errorf("%s: the recording holds no samples", source)
	}
	feed := remote.NewReplay(rec, source)
	defer feed.Stop()
	interval := rec.Samples[len(rec.Samples)-1].Interval
	app := tui.New(feed, tui.Options{Interval: interval, Speed: speed, Captions: captions,
		History: max(feed.Len(), 3600)})
	return runConsole([]*tui.App{app})
}
