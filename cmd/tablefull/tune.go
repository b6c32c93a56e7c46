package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/tune"
)

// Exit codes of tablefull tune.
const (
	exitRefused    = 3 // nothing written: bad value, --yes missing, memory cap, no privileges, read-only, global knob in a child namespace
	exitUnverified = 4 // written, but a value did not read back as asked
	exitPartial    = 5 // some changes written (and recorded for --undo), then one failed
)

// tuneOptions are tune's flags.
type tuneOptions struct {
	set                        []string
	persist, yes, dryRun, undo bool
	force, asJSON              bool
	observe                    time.Duration
	sysctlDir, modprobeDir     string
	sysctlConf, stateDir       string
}

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

// Error implements error.
func (e exitError) Error() string { return e.err.Error() }

// Unwrap implements error.
func (e exitError) Unwrap() error { return e.err }

func refused(err error) error { return exitError{exitRefused, err} }

// tuneReport is what tune prints with --json.
type tuneReport struct {
	Plan     model.Plan       `json:"plan"`
	Results  []sources.Result `json:"results,omitempty"`
	Files    []string         `json:"files_written,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
}

// tuneCommand proposes, previews, applies, persists or undoes tuning.
func tuneCommand(o options, t tuneOptions, w io.Writer) error {
	tuner := sources.NewTuner(o.roots)
	pers := sources.Persister{SysctlDir: t.sysctlDir, ModprobeDir: t.modprobeDir, SysctlConf: t.sysctlConf}
	if t.undo {
		return undoTuning(&tune.Local{Tuner: tuner, Pers: pers, StateDir: t.stateDir}, w)
	}
	current := tuner.Read()
	plan, count, err := planFor(o, t, tuner, current)
	if err != nil {
		return err
	}
	report := tuneReport{Plan: plan}
	var files []sources.FileChange
	if t.persist || t.dryRun {
		if files, err = pers.Plan(plan.Changes); err != nil {
			return err
		}
		report.Warnings = pers.Shadowed(plan.Changes)
	}
	if !t.asJSON {
		printPlan(w, plan, report.Warnings)
	}
	if t.dryRun {
		printDiffs(w, files)
		return nil
	}
	if plan.Cost.Level() == model.SevCrit && !t.force {
		return refused(fmt.Errorf("the table would take %.0f %% of RAM (over %.0f %%): pass --force if you mean it", plan.Cost.PctOfRAM, model.MemRefusePct))
	}
	if len(plan.Changes) == 0 || !t.yes {
		if t.asJSON {
			return writeJSON(w, report)
		}
		if len(plan.Changes) > 0 {
			fmt.Fprintln(w, "nothing written: add --yes to apply (and --persist to keep it after a reboot)")
			if len(t.set) > 0 {
				return exitError{exitRefused, errors.New("--yes needed to apply")}
			}
		}
		return nil
	}
	lt := &tune.Local{Tuner: tuner, Pers: pers, StateDir: t.stateDir}
	report.Results, err = lt.Apply(plan.Changes, count)
	switch {
	case err == nil:
	case len(report.Results) == 0:
		return refused(err)
	case errors.Is(err, sources.ErrPartial):
		return partly(w, t, report, err)
	default: // applied, but the undo record could not be kept
		report.Warnings = append(report.Warnings, err.Error())
	}
	if t.persist {
		written, warnings, err := lt.Persist(plan.Changes)
		report.Files, report.Warnings = written, append(report.Warnings, warnings...)
		if len(written) > 0 && err != nil {
			return partly(w, t, report, err)
		}
		if err != nil {
			return fmt.Errorf("live values applied (undo restores them), files not written: %w", err)
		}
	}
	if t.asJSON {
		if err := writeJSON(w, report); err != nil {
			return err
		}
	} else {
		printResults(w, report)
	}
	for _, r := range report.Results {
		if !r.Verified {
			return exitError{exitUnverified, fmt.Errorf("%s reads back %q, not %q", r.Key, r.After, r.Wanted)}
		}
	}
	return nil
}

// planFor is the explicit --set changes, or a plan from observing the
// host for a few seconds.
func planFor(o options, t tuneOptions, tuner *sources.Tuner, current map[string]string) (model.Plan, uint64, error) {
	c, err := sources.NewCollector(o.roots)
	if err != nil {
		return model.Plan{}, 0, err
	}
	host := c.Host()
	an := model.NewAnalyzer(100)
	measured := model.NewRing[model.Frame](1) // a single sample measures no peak
	var last model.Frame
	if len(t.set) > 0 || t.observe <= 0 {
		last = an.Add(c.Sample(time.Now(), 0))
		c.Close()
	} else {
		live := sources.NewLive(c, time.Second)
		for end := time.Now().Add(t.observe); time.Now().Before(end); {
			s, err := live.Next()
			if err != nil {
				break
			}
			last = an.Add(s)
		}
		live.Stop()
		measured = an.Frames()
	}
	in := model.NewTuningInputs(current, host, tuner.EntryBytes(), measured, last)
	count := last.Sample.Conntrack.Count
	if len(t.set) == 0 {
		return model.ProposePlan(in), count, nil
	}
	var changes []model.Change
	for _, kv := range t.set {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return model.Plan{}, 0, refused(fmt.Errorf("--set %q: want KEY=VALUE", kv))
		}
		v, err := model.ParseValue(strings.TrimSpace(key), value)
		if err != nil {
			return model.Plan{}, 0, refused(err)
		}
		changes = append(changes, model.Change{Key: strings.TrimSpace(key), Current: current[strings.TrimSpace(key)], Proposed: v, Why: "asked for"})
	}
	model.SortChanges(changes)
	return model.Plan{Changes: changes, Cost: model.CostOf(current, changes, in.EntryBytes, in.MemTotal)}, count, nil
}

func printPlan(w io.Writer, p model.Plan, warnings []string) {
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "nothing to change: the current values cover what was measured")
	}
	for _, c := range p.Changes {
		fmt.Fprintf(w, "%-52s %12s → %-12s %s\n", c.Key, c.Current, c.Proposed, c.Why)
	}
	c := p.Cost
	note := ""
	if c.EntryBytesAssumed {
		note = fmt.Sprintf(" (slab unreadable: %d B per entry assumed)", model.FallbackEntryBytes)
	}
	fmt.Fprintf(w, "memory: %s entries × %d B + %s buckets × 8 B = %.1f MiB, %.1f %% of RAM%s\n",
		model.Int(c.Entries), c.EntryBytes, model.Int(c.Buckets), c.MiB(), c.PctOfRAM, note)
	if c.Level() == model.SevWarn {
		fmt.Fprintf(w, "warning: over %.0f %% of RAM\n", model.MemWarnPct)
	}
	for _, s := range warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}

func printDiffs(w io.Writer, files []sources.FileChange) {
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
	for _, f := range r.Files {
		fmt.Fprintln(w, "written:", f)
	}
	for _, s := range r.Warnings {
		fmt.Fprintln(w, "warning:", s)
	}
}

// writeJSON prints the report.
func writeJSON(w io.Writer, report tuneReport) error {
	if err := json.NewEncoder(w).Encode(report); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// partly reports a write that stopped half-way: what was written (it is
// in the undo record) and the error, with exitPartial.
func partly(w io.Writer, t tuneOptions, report tuneReport, err error) error {
	if t.asJSON {
		if werr := writeJSON(w, report); werr != nil {
			err = errors.Join(err, werr)
		}
	} else {
		printResults(w, report)
		fmt.Fprintln(w, "partly written: tablefull tune --undo restores what was written")
	}
	return exitError{exitPartial, err}
}

// undoTuning restores the live values and files the last apply changed.
func undoTuning(lt *tune.Local, w io.Writer) error {
	res, restored, err := lt.UndoFiles()
	if err != nil {
		return refused(err)
	}
	printResults(w, tuneReport{Results: res})
	for _, f := range restored {
		fmt.Fprintln(w, "restored:", f)
	}
	return nil
}
