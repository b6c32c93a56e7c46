package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/tablefull/tablefull/model/compare"
	"github.com/tablefull/tablefull/remote/recording"
)

// CompareSchema names the JSON document tablefull compare --json prints.
const CompareSchema = "tablefull.compare/1"

// CompareDoc is tablefull compare --json: the comparison as data, beside
// its schema.
type CompareDoc struct {
	Schema string `json:"schema"`
	compare.Comparison
}

// CompareRequest is what tablefull compare is asked for: the recordings
// of each side (a file, or a span of one: FILE@FROM..TO), how many passes
// a side has, and the medium.
type CompareRequest struct {
	// Specs are the recordings as given: the first Passes are side A, the
	// rest side B.
	Specs []string
	// Passes is the passes a side (1: compare A B).
	Passes int
	// JSON and Markdown choose the medium (neither: text).
	JSON, Markdown bool
	// Picture, when set, is where the sides' count against the cap is
	// drawn as SVG.
	Picture string
}

// AddFlags registers tablefull compare's flags on fs, each filling q.
func (q *CompareRequest) AddFlags(fs *flag.FlagSet) {
	fs.IntVar(&q.Passes, "passes", 1, "`N` recordings a side: the first N are before, the next N after")
	fs.BoolVar(&q.JSON, "json", false, "print JSON (schema in docs/report.md)")
	fs.BoolVar(&q.Markdown, "markdown", false, "print Markdown")
	fs.StringVar(&q.Picture, "svg", "", "also draw both sides' count against the cap, from each recording's start, to `OUT` (SVG)")
}

// Check refuses a request whose recordings do not make two sides of
// Passes each.
func (q CompareRequest) Check() error {
	switch {
	case q.Passes < 1:
		return fmt.Errorf("--passes must be at least 1")
	case q.JSON && q.Markdown:
		return fmt.Errorf("--json and --markdown: choose one")
	case len(q.Specs) != 2*q.Passes:
		return fmt.Errorf("want %d recordings with --passes %d, %d before the change then %d after; got %d",
			2*q.Passes, q.Passes, q.Passes, q.Passes, len(q.Specs))
	}
	return nil
}

// Run reads every recording, one at a time, and prints the comparison.
func (q CompareRequest) Run(stdout io.Writer) error {
	if err := q.Check(); err != nil {
		return err
	}
	passes := make([]compare.Pass, 0, len(q.Specs))
	for _, spec := range q.Specs {
		p, err := readPass(spec)
		if err != nil {
			return err
		}
		passes = append(passes, p)
	}
	c := compare.Compare(passes[:q.Passes], passes[q.Passes:])
	if q.Picture != "" {
		if err := recording.WriteFile(q.Picture, ComparePicture(c), true); err != nil {
			return fmt.Errorf("write the picture: %w", err)
		}
	}
	switch {
	case q.JSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(CompareDoc{Schema: CompareSchema, Comparison: c})
	case q.Markdown:
		_, err := io.WriteString(stdout, CompareMarkdown(c))
		return err
	}
	_, err := io.WriteString(stdout, CompareText(c))
	return err
}

// readPass reads one side's recording, or the span of it spec names
// (FILE@FROM..TO, either end left out for the recording's own).
func readPass(spec string) (compare.Pass, error) {
	file, span, o, err := parseSpec(spec)
	if err != nil {
		return compare.Pass{}, err
	}
	f, err := os.Open(file)
	if err != nil {
		return compare.Pass{}, fmt.Errorf("open recording: %w", err)
	}
	defer f.Close()
	name := filepath.Base(file) + span // the document is shared: not the path it was read from
	rep, err := Read(f, o)
	if err != nil {
		return compare.Pass{}, fmt.Errorf("%s: %w", name, err)
	}
	return compare.PassOf(name, rep.Incident), nil
}

// parseSpec splits FILE@FROM..TO. A file that exists under the whole
// spec, or whose name's last @ is followed by no span, is read whole.
func parseSpec(spec string) (file, span string, o Options, err error) {
	i := strings.LastIndex(spec, "@")
	if _, statErr := os.Stat(spec); statErr == nil || i < 0 || !strings.Contains(spec[i+1:], "..") {
		return spec, "", o, nil
	}
	from, to, _ := strings.Cut(spec[i+1:], "..")
	if o.From, err = ParseWhen(from); err != nil {
		return "", "", o, fmt.Errorf("%s: from: %w", spec, err)
	}
	if o.To, err = ParseWhen(to); err != nil {
		return "", "", o, fmt.Errorf("%s: to: %w", spec, err)
	}
	return spec[:i], spec[i:], o, nil
}
