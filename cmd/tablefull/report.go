package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tablefull/tablefull/remote/report"
)

// reportOptions are report's flags.
type reportOptions struct {
	dir, from, to, title string
	demo, force          bool
}

// writeReport turns a recording (or the embedded demo) into report.html,
// report.md and its charts in lo.dir.
func writeReport(file string, ro reportOptions, stdout io.Writer) error {
	from, err := report.ParseWhen(ro.from)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	to, err := report.ParseWhen(ro.to)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	var in io.Reader = bytes.NewReader(demoRecording)
	source := "the embedded demo"
	switch {
	case ro.demo && file != "":
		return usageError{errors.New("give FILE or --demo, not both")}
	case !ro.demo:
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("open recording: %w", err)
		}
		defer f.Close()
		in, source = f, filepath.Base(file) // the document is shared: not the path it was read from
	}
	rep, err := report.Build(in, report.Options{From: from, To: to, Title: ro.title, Source: source})
	if err != nil {
		return fmt.Errorf("%s: %w", source, err)
	}
	written, err := rep.Write(ro.dir, ro.force)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return err
}
