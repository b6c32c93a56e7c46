package tunecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/aymanbagabas/go-udiff"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/tune"
)

// tuneReport is what tune prints with --json.
type tuneReport struct {
	Schema string      `json:"schema"`
	Plan   tuning.Plan `json:"plan"`
	// Diagnosis is the moment the plan was made for (none for --set).
	Diagnosis *tuning.Said  `json:"diagnosis,omitempty"`
	Results   []tune.Result `json:"results,omitempty"`
	Files     []string      `json:"files_written,omitempty"`
	Warnings  []string      `json:"warnings,omitempty"`
	// DryRun are the files a persist would change (a dry run), Refused
	// why an apply of the plan would be refused.
	DryRun  []string `json:"files_to_change,omitempty"`
	Refused string   `json:"refused,omitempty"`
	// Drift are the knobs tablefull persisted that read otherwise live;
	// Build how nf_conntrack is in the kernel and Boot what applies the
	// persisted files at boot on it (with --persist or --dry-run).
	Drift []knob.Drift        `json:"drift,omitempty"`
	Build knob.ConntrackBuild `json:"nf_conntrack,omitempty"`
	Boot  string              `json:"boot,omitempty"`
}

// printDrift says each knob that drifted from its persisted value.
func printDrift(w io.Writer, drift []knob.Drift) {
	for _, d := range drift {
		fmt.Fprintln(w, "drift:", d.Say())
	}
}

// printPlan prints a plan as the panel shows it: the changes here, the
// global ones from the host with the command that applies them, what the
// plan could not know, and a refusal.
func printPlan(w io.Writer, p tuning.Plan, warnings []string) {
	if p.Empty() && p.Refusal == "" {
		fmt.Fprintln(w, p.Nothing())
	}
	for _, c := range p.Changes {
		fmt.Fprintf(w, "%-52s %12s → %-12s %s\n", c.Key, c.Current, c.Proposed, c.Why.Text())
	}
	for _, c := range p.FromHost {
		fmt.Fprintf(w, "%-52s %12s → %-12s (on the host) %s\n", c.Key, c.Current, c.Proposed, c.Why.Text())
	}
	if p.HostCommand != "" {
		fmt.Fprintln(w, "global knobs: read-only here; on the host run:", p.HostCommand)
	}
	for _, n := range p.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	if p.Refusal != "" {
		fmt.Fprintln(w, "refused:", p.Refusal)
	}
	c := p.Cost
	note := ""
	if c.EntryBytesAssumed {
		note = fmt.Sprintf(" (slab unreadable: %d B per entry assumed)", tuning.FallbackEntryBytes)
	}
	fmt.Fprintf(w, "memory: %s entries × %d B + %s buckets × 8 B = %.1f MiB, %.1f %% of RAM%s\n",
		units.Int(c.Entries), c.EntryBytes, units.Int(c.Buckets), c.MiB(), c.PctOfRAM, note)
	if worst := c.WorstCase(); worst != "" {
		fmt.Fprintln(w, "memory:", worst)
	}
	if c.Level() == verdict.SevWarn {
		fmt.Fprintf(w, "warning: over %.0f %% of RAM\n", tuning.MemWarnPct)
	}
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}

func printDiffs(w io.Writer, boot string, files []tune.FileChange) {
	if boot != "" {
		fmt.Fprintln(w, boot)
	}
	for _, f := range files {
		if !f.Changed() {
			fmt.Fprintf(w, "%s: unchanged\n", f.Path)
			continue
		}
		fmt.Fprint(w, udiff.Unified(f.Path, f.Path, string(f.Old), string(f.New)))
	}
}

func printResults(w io.Writer, r tuneReport) {
	for _, x := range r.Results {
		state := "verified"
		if !x.Verified {
			state = fmt.Sprintf("NOT VERIFIED (reads back %q)", x.After)
		}
		fmt.Fprintf(w, "%-52s %12s → %-12s %s\n", x.Key, x.Before, x.Wanted, state)
	}
	if len(r.Files) > 0 && r.Boot != "" {
		fmt.Fprintln(w, r.Boot)
	}
	for _, f := range r.Files {
		fmt.Fprintln(w, "written:", f)
	}
	for _, s := range r.Warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}

// Report is what tune --json prints (docs/json.md).
type Report = tuneReport

// ReportSchema and StepSchema name the JSON documents tune --json and
// tune --until-free --json print, with their versions (docs/json.md).
const (
	ReportSchema = "tablefull.tune/2"
	StepSchema   = "tablefull.tune-step/2"
)

// writeJSON prints the report.
func writeJSON(w io.Writer, report tuneReport) error {
	report.Schema = ReportSchema
	return writeJSONValue(w, report)
}

// writeJSONValue prints v as one line of JSON.
func writeJSONValue(w io.Writer, v any) error {
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// partly reports a write that stopped half-way: what was written (it is
// in the undo record) and the error, with exitcode.Partial.
func partly(w io.Writer, t CommandOptions, report tuneReport, err error) error {
	if t.JSON {
		if werr := writeJSON(w, report); werr != nil {
			err = errors.Join(err, werr)
		}
	} else {
		printResults(w, report)
		fmt.Fprintln(w, "partly written: tablefull tune --undo restores what was written")
	}
	return exitcode.Error{Code: exitcode.Partial, Err: err}
}

// undoTuning restores the live values (and, on the host, the files) the
// last apply changed.
func undoTuning(tgt tuning.Tuner, lt *tune.Local, w io.Writer) error {
	var restored []string
	var res []knob.Result
	var err error
	if tgt == tuning.Tuner(lt) {
		res, restored, err = lt.UndoFiles()
	} else {
		res, err = tgt.Undo()
	}
	if err != nil {
		return refused(err)
	}
	printResults(w, tuneReport{Results: res})
	for _, f := range restored {
		fmt.Fprintln(w, "restored:", f)
	}
	return nil
}
