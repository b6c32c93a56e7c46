package main

import (
	"errors"
	"io"
)

// writeReport turns a recording (or the embedded demo) into report.html,
// report.md and its charts.
func writeReport(v *flagValues, stdout io.Writer) error {
	rq := v.report
	rq.File, rq.DemoRecording = v.arg, demoRecording
	if rq.Demo && v.arg != "" {
		return usageError{errors.New("give FILE or --demo, not both")}
	}
	return rq.Run(stdout)
}
