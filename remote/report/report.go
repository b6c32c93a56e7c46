// Package report turns a recording into its post-mortem: report.html (one
// self-contained file, the charts inline as SVG, no script, no network)
// and report.md with the charts beside it as SVG files. The charts are
// drawn as SVG by svg.go; the story is told from the analyzer's frames in one
// streaming pass, so a 12-hour recording costs no more memory than a
// minute of one. A recording is foreign input: every string of it is
// sanitised and escaped for HTML and Markdown on its way out.
package report

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
)

// Options choose what a report covers and what it is called.
type Options struct {
	// From and To bound the time covered (unset: the whole recording).
	From, To When
	// Title heads the report ("" for one made from the host's name).
	Title string
	// Source names the recording ("demo", a file name).
	Source string
	// Reread, when set, opens the recording again: a recording that
	// holds its own fix is then compared before and after it.
	Reread Rereader
}

// Report is a recording's post-mortem.
type Report struct {
	Options
	Incident *incident.Incident
	Charts   []Chart
	// Fix compares the recording before and after its own fix (nil:
	// none, or not read again).
	Fix *FixComparison
	// Torn reports that the recording's last line was cut; Damaged
	// counts lines skipped as garbage.
	Torn    bool
	Damaged int
	// Unordered counts samples skipped for not coming after the one
	// before them.
	Unordered int
	// from and to are Options' window in the recording's time.
	from, to time.Time
}

// ErrNoSamples is a recording, or a --from/--to window, without samples.
var ErrNoSamples = errors.New("no samples")

// maxResults bounds the knob results read from one apply reply.
const maxResults = 16

// Build reads a recording from r in one pass and tells its story.
func Build(r io.Reader, o Options) (*Report, error) {
	rep, err := Read(r, o)
	if err != nil {
		return nil, err
	}
	if rep.Charts, err = charts(rep.Incident); err != nil {
		return nil, err
	}
	if rep.Fix, err = rep.fixComparison(o.Reread); err != nil {
		return nil, err
	}
	return rep, nil
}

// Read reads a recording from r in one pass into its incident, without
// drawing its charts: what a comparison of recordings needs of each.
func Read(r io.Reader, o Options) (*Report, error) {
	d := stream.NewDecoder(r)
	if err := d.Header(); err != nil {
		return nil, fmt.Errorf("read recording: %w", err)
	}
	rep := &Report{Options: o, from: o.From.resolve(d.Started), to: o.To.resolve(d.Started)}
	if !rep.to.IsZero() && rep.to.Before(rep.from) {
		return nil, fmt.Errorf("--to %s is before --from %s", rep.to.UTC().Format(time.RFC3339), rep.from.UTC().Format(time.RFC3339))
	}
	an := diagnose.NewAnalyzer(2)
	var in *incident.Incident
	var last time.Time
	for {
		s, ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			rep.Torn, rep.Damaged = d.Torn != nil, d.Damaged
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read recording: %w", err)
		}
		if ev != nil {
			switch {
			case in == nil || !rep.covers(ev.Time):
			case ev.Type == recording.EventApply || ev.Type == recording.EventUndo:
				in.Applied(ev.Time, applyResults(ev.Text))
			case ev.Type == recording.EventDeleted:
				if d, err := recording.ParseDeleted(ev.Text); err == nil { // one not tablefull's is not listed
					in.Deleted(incident.EntriesDeleted{At: ev.Time, Filter: d.Filter, Deletion: d.Deletion, Error: d.Error})
				}
			}
			continue
		}
		if !last.IsZero() && !s.Time.After(last) {
			rep.Unordered++ // a recording runs forward: this one is not a sample of it
			continue
		}
		last = s.Time
		f := an.Add(*s)
		if !rep.covers(s.Time) {
			continue
		}
		if in == nil {
			in = incident.New(d.Host, s.Interval)
		}
		in.Add(f)
	}
	if in == nil {
		return nil, fmt.Errorf("read recording: %w in it%s", ErrNoSamples, rep.window())
	}
	in.Finish()
	rep.Incident = in
	return rep, nil
}

func (r *Report) covers(t time.Time) bool {
	return (r.from.IsZero() || !t.Before(r.from)) && (r.to.IsZero() || !t.After(r.to))
}

// window says which part of the recording the report covers.
func (r *Report) window() string {
	switch {
	case r.from.IsZero() && r.to.IsZero():
		return ""
	case r.to.IsZero():
		return " from " + r.from.UTC().Format(time.RFC3339)
	case r.from.IsZero():
		return " up to " + r.to.UTC().Format(time.RFC3339)
	}
	return " from " + r.from.UTC().Format(time.RFC3339) + " to " + r.to.UTC().Format(time.RFC3339)
}

// applyResults reads an apply reply's knob results: only knobs tablefull
// knows, their values re-rendered from the numbers they parse as (a value
// that does not parse is shown as "?"); nothing else of the reply's text
// is kept.
func applyResults(text string) []knob.Result {
	results, ok := recording.ParseTuned(text)
	if !ok {
		return nil
	}
	var out []knob.Result
	for _, r := range results {
		if _, ok := tuning.Spec(r.Key); !ok || len(out) == maxResults {
			continue
		}
		clean := func(v string) string {
			if n, err := tuning.ParseValue(r.Key, v); err == nil {
				return n
			}
			return "?"
		}
		out = append(out, knob.Result{Key: r.Key, Before: clean(r.Before), Wanted: clean(r.Wanted), After: clean(r.After), Verified: r.Verified})
	}
	return out
}

// Heading is the report's title.
func (r *Report) Heading() string {
	if r.Options.Title != "" {
		return safe.Text(r.Options.Title, 200)
	}
	in, host := r.Incident, safe.Text(r.Incident.Host.Name, 64)
	elsewhere := len(in.FullNamespaces) + in.FullNamespacesOther
	switch {
	case in.FirstPinned.IsZero() && in.Drops == 0 && elsewhere == 1 && len(in.FullNamespaces) == 1:
		return "Conntrack incident in " + safe.Text(in.FullNamespaces[0].Label, 64) + " on " + host
	case in.FirstPinned.IsZero() && in.Drops == 0 && elsewhere > 1:
		return "Conntrack incident in " + units.Int(uint64(elsewhere)) + " namespaces on " + host
	case in.FirstPinned.IsZero() && in.Drops == 0:
		return "No conntrack incident on " + host
	}
	return "Conntrack incident on " + host
}
