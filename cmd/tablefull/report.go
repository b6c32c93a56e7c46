package main

import (
	"errors"
	"io"

	flag "github.com/spf13/pflag"
)

func reportFlags(fs *flag.FlagSet, v *flagValues) {
	rq := &v.report
	fs.StringVarP(&rq.Dir, "output", "o", "report", "write the report into `DIR`")
	fs.StringVar(&rq.From, "from", "", "start at `T`: RFC 3339, a UTC time of day (21:04:00) or an offset (+90s)")
	fs.StringVar(&rq.To, "to", "", "end at `T` (as --from)")
	fs.StringVar(&rq.Title, "title", "", "the report's `TITLE` (default: the host's name)")
	fs.BoolVar(&v.demo, "demo", false, "report on the embedded demo instead of FILE")
	fs.BoolVar(&rq.Force, "force", false, "replace the files of an earlier report in DIR")
}

// writeReport turns a recording (or the embedded demo) into report.html,
// report.md and its charts.
func writeReport(v *flagValues, stdout io.Writer) error {
	rq := v.report
	rq.File = v.file
	if v.demo {
		if v.file != "" {
			return usageError{errors.New("give FILE or --demo, not both")}
		}
		rq.Demo = demoRecording
	}
	return rq.Run(stdout)
}
