package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/remote/recording"
)

// Request is what tablefull report is asked for: the recording (a file,
// or the embedded demo's bytes), the span and title as given on the
// command line, and where to write.
type Request struct {
	// File is the recording's path, read unless Demo.
	File string
	// Demo reports on the embedded demo's recording instead.
	Demo bool
	// From and To are --from and --to as given (see ParseWhen).
	From, To, Title string
	// Dir is where report.html, report.md and the charts go; Force
	// replaces an earlier report's files there.
	Dir   string
	Force bool
}

// AddFlags registers tablefull report's flags on fs, each filling q.
func (q *Request) AddFlags(fs *flag.FlagSet) {
	fs.StringVarP(&q.Dir, "output", "o", "report", "write the report into `DIR`")
	fs.StringVar(&q.From, "from", "", "start at `T`: RFC 3339, a UTC time of day (21:04:00) or an offset (+90s)")
	fs.StringVar(&q.To, "to", "", "end at `T` (as --from)")
	fs.StringVar(&q.Title, "title", "", "the report's `TITLE` (default: the host's name)")
	fs.BoolVar(&q.Demo, "demo", false, "report on the embedded demo instead of FILE")
	fs.BoolVar(&q.Force, "force", false, "replace the files of an earlier report in DIR")
}

// Run builds the report and writes it, printing each file written.
func (q Request) Run(stdout io.Writer) error {
	o := Options{Title: q.Title}
	var err error
	if o.From, err = ParseWhen(q.From); err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	if o.To, err = ParseWhen(q.To); err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	var in io.Reader = bytes.NewReader(recording.DemoRecording)
	o.Source = "the embedded demo"
	o.Reread = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(recording.DemoRecording)), nil }
	if !q.Demo {
		f, err := os.Open(q.File)
		if err != nil {
			return fmt.Errorf("open recording: %w", err)
		}
		defer f.Close()
		in, o.Source = f, filepath.Base(q.File) // the document is shared: not the path it was read from
		o.Reread = func() (io.ReadCloser, error) { return os.Open(q.File) }
	}
	rep, err := Build(in, o)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Source, err)
	}
	written, err := rep.Write(q.Dir, q.Force)
	for _, p := range written {
		fmt.Fprintln(stdout, "wrote", p)
	}
	return err
}
