package recording

import (
	"bytes"
	_ "embed" // the demo's recording
	"fmt"
)

// DemoRecording is a real table-full incident recorded on this kind of
// machine (README: how to re-record it): what tablefull demo plays and
// tablefull report --demo reports on.
//
//go:embed demo/table-full.jsonl
var DemoRecording []byte

// Demo is the embedded incident as a replay.
func Demo() (*Replay, error) {
	rec, err := ReadRecording(bytes.NewReader(DemoRecording))
	if err != nil {
		return nil, fmt.Errorf("read embedded demo: %w", err)
	}
	return NewReplay(rec, "demo"), nil
}
