package tunecmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/tune"
)

// CommandOptions are tablefull tune's flags.
type CommandOptions struct {
	Set                        []string
	Persist, Yes, DryRun, Undo bool
	Force, JSON                bool
	Observe                    time.Duration
	SysctlDir, ModprobeDir     string
	SysctlConf, StateDir       string
	// NetnsPath, when set, tunes that network namespace from the host
	// (Namespaced). Feed is the table measured: this host's collector,
	// or with NetnsPath the namespace's agent's stream.
	NetnsPath string
	Feed      func() (model.Feed, error)
	// Netns is --netns as given (NAME|PATH): the command line's wiring
	// sets NetnsPath and Feed from it.
	Netns string
	// Target, when set, is the tuner tune reads and writes through
	// instead of this host's or --netns's (a recorded incident's knobs).
	Target tuning.Tuner
	// UntilFree applies, watches and repeats, at most Steps times,
	// watching each step up to Watch.
	UntilFree bool
	Steps     int
	Watch     time.Duration
	// UndoAlso puts back, with --undo on this host, what else tablefull
	// changed and left recorded: a lab killed before it restored the host
	// (the command line wires the lab's repair). It says what it did;
	// lab.ErrRunning, when the lab still runs and will restore the host
	// itself, is said, not failed.
	UndoAlso func() (string, error)
}

// targetOf is the tuner of t's target, this host (Local) or a namespace
// of it from the host (Namespaced), and the host's own tuner.
func targetOf(roots kernelfs.Roots, t CommandOptions) (tuning.Tuner, *tune.Local, error) {
	tuner := tune.NewSysctls(roots)
	local := &tune.Local{Tuner: tuner, Pers: t.persister(roots), StateDir: t.StateDir, ProcRoot: roots.Proc}
	if t.Target != nil {
		return t.Target, local, nil
	}
	if t.NetnsPath == "" {
		return local, local, nil
	}
	if t.Persist {
		return nil, nil, refused(tune.ErrNoPersistInNetns)
	}
	ns, err := tune.ForNetns(roots, t.StateDir, t.NetnsPath)
	if err != nil {
		return nil, nil, refused(err)
	}
	return ns, local, nil
}

// persister is where tune persists: under roots.Etc, each directory
// flag that is set instead of its default.
func (t CommandOptions) persister(roots kernelfs.Roots) tune.Persister {
	p := tune.PersisterAt(roots)
	for _, o := range []struct{ flag, dst *string }{{&t.SysctlDir, &p.SysctlDir}, {&t.ModprobeDir, &p.ModprobeDir}, {&t.SysctlConf, &p.SysctlConf}} {
		if *o.flag != "" {
			*o.dst = *o.flag
		}
	}
	return p
}

func refused(err error) error { return exitcode.Error{Code: exitcode.Refused, Err: err} }

// Command is tablefull tune: it proposes, previews, applies, persists or
// undoes tuning of the host under roots (or its --netns namespace, or
// t.Target), and prints what it did to w.
func Command(roots kernelfs.Roots, t CommandOptions, w io.Writer) error {
	tgt, lt, err := targetOf(roots, t)
	if err != nil {
		return err
	}
	if t.Undo {
		return undoAll(t, tgt, lt, w)
	}
	knobs, err := tgt.Read()
	if err != nil {
		return err
	}
	var say io.Writer = w
	if t.JSON {
		say = io.Discard
	}
	feed, err := feedOf(t)
	if err != nil {
		return err
	}
	defer stopFeed(feed)
	if t.UntilFree {
		return untilFree(w, t, tgt, feed)
	}
	var drift []knob.Drift
	if t.NetnsPath == "" && t.Target == nil { // the host's persisted values against its live ones
		if d, err := lt.Pers.Drift(knobs.Current, roots.Proc); err == nil {
			drift = d.Drifted
		}
		printDrift(say, drift)
	}
	plan, said, count, err := planFor(t, feed, knobs, say)
	if err != nil {
		return err
	}
	report, files, err := reportOf(roots, t, lt.Pers, tuneReport{Plan: plan, Diagnosis: said, Drift: drift})
	if err != nil {
		return err
	}
	if !t.JSON {
		printPlan(w, plan, report.Warnings)
	}
	var refusal error
	if plan.Cost.Level() == verdict.SevCrit && !t.Force {
		refusal = refused(fmt.Errorf("the table would take %.0f %% of RAM (over %.0f %%): pass --force if you mean it", plan.Cost.PctOfRAM, tuning.MemRefusePct))
	}
	switch {
	case t.DryRun:
		return dryRun(w, t, report, files, refusal)
	case refusal != nil:
		return refusal
	case len(plan.Changes) == 0 && len(plan.FromHost) > 0 && t.Yes:
		return refused(fmt.Errorf("%w: run on the host: %s", tune.ErrGlobalInChild, plan.HostCommand))
	case len(plan.Changes) == 0 || !t.Yes:
		return notWritten(w, t, report)
	}
	return applyPlan(w, t, tgt, lt, report, count)
}

// reportOf is what tune says of a plan beside it: with --persist or
// --dry-run how it persists on this kernel and the files it would change,
// and who else writes its knobs.
func reportOf(roots kernelfs.Roots, t CommandOptions, pers tune.Persister, report tuneReport) (tuneReport, []tune.FileChange, error) {
	var files []tune.FileChange
	changes := report.Plan.Changes
	if t.Persist || t.DryRun {
		var err error
		report.Build, report.Boot = pers.Build, pers.BootNote()
		if files, err = pers.Plan(changes); err != nil {
			return report, nil, err
		}
		report.Warnings = pers.Shadowed(changes)
	}
	report.Warnings = append(report.Warnings, tune.ManagerWarnings(tune.FindManagers(roots.Proc), changes)...)
	return report, files, nil
}

// dryRun says what an apply would do, and exits as it would.
func dryRun(w io.Writer, t CommandOptions, report tuneReport, files []tune.FileChange, refusal error) error {
	if refusal != nil {
		report.Refused = refusal.Error()
	}
	for _, f := range files {
		if f.Changed() {
			report.DryRun = append(report.DryRun, f.Path)
		}
	}
	if t.JSON {
		if err := writeJSON(w, report); err != nil {
			return err
		}
	} else {
		printDiffs(w, report.Boot, files)
	}
	return refusal
}

// notWritten ends a run that writes nothing: no change, or no --yes.
func notWritten(w io.Writer, t CommandOptions, report tuneReport) error {
	if t.JSON {
		return writeJSON(w, report)
	}
	if len(report.Plan.Changes) > 0 {
		fmt.Fprintln(w, "nothing written: add --yes to apply (and --persist to keep it after a reboot)")
		if len(t.Set) > 0 {
			return exitcode.Error{Code: exitcode.Refused, Err: errors.New("--yes needed to apply")}
		}
	}
	return nil
}

// applyPlan writes the plan through tgt, persists it with --persist, and
// prints what reads back.
func applyPlan(w io.Writer, t CommandOptions, tgt tuning.Tuner, lt *tune.Local, report tuneReport, count uint64) error {
	changes := report.Plan.Changes
	var err error
	report.Results, err = tgt.Apply(changes, count)
	switch {
	case err == nil:
	case len(report.Results) == 0:
		return refused(err)
	case errors.Is(err, tune.ErrPartial):
		return partly(w, t, report, err)
	default: // applied, but the step could not be kept
		report.Warnings = append(report.Warnings, err.Error())
	}
	if t.Persist {
		written, warnings, err := lt.PersistFiles(changes)
		report.Files, report.Warnings = written, append(report.Warnings, warnings...)
		if len(written) > 0 && err != nil {
			return partly(w, t, report, err)
		}
		if err != nil {
			return fmt.Errorf("live values applied (undo restores them), files not written: %w", err)
		}
	}
	if t.JSON {
		if err := writeJSON(w, report); err != nil {
			return err
		}
	} else {
		printResults(w, report)
	}
	for _, r := range report.Results {
		if !r.Verified {
			return exitcode.Error{Code: exitcode.Unverified, Err: fmt.Errorf("%s reads back %q, not %q", r.Key, r.After, r.Wanted)}
		}
	}
	return nil
}

// planFor is the explicit --set changes, or the one plan (tuning.Diagnose)
// from observing feed for a few seconds, saying to say what it measures
// and for how long; with the moment's diagnosis as --json prints it (nil
// for --set, which asks none).
func planFor(t CommandOptions, feed model.Feed, knobs tuning.KnobState, say io.Writer) (tuning.Plan, *tuning.Said, uint64, error) {
	an := diagnose.NewAnalyzer(diagnose.HistoryFor(t.Observe, time.Second))
	var last diagnose.Frame
	if len(t.Set) > 0 || t.Observe <= 0 {
		s, err := oneSample(feed)
		if err != nil {
			return tuning.Plan{}, nil, 0, fmt.Errorf("measure the table: %w", err)
		}
		last = an.Add(s)
	} else {
		fmt.Fprintf(say, "measuring %s for %s (--observe): new entries, the count's peak, what fills the table…\n", measuredName(t), t.Observe)
		var err error
		if last, err = observe(feed, an, t.Observe); err != nil {
			return tuning.Plan{}, nil, 0, err
		}
	}
	count := last.Sample.Conntrack.Count
	if len(t.Set) == 0 {
		d := tuning.Diagnose(tuning.Guide{Knobs: knobs, Host: feed.Host(), Measured: an.Frames(), Now: last})
		if t.Observe > 0 {
			fmt.Fprintf(say, "measured: peak count %s; at the end %s\n", units.Int(last.Sample.Conntrack.Peak), last.Rates.Entries.RateText())
		}
		return d.Plan, d.Said(), count, nil
	}
	changes, err := parseSet(t.Set, knobs.Current)
	if err != nil {
		return tuning.Plan{}, nil, 0, err
	}
	return tuning.Plan{Changes: changes, Cost: tuning.CostOf(knobs.Current, changes, knobs.EntryBytes, feed.Host().MemTotal)}, nil, count, nil
}

// parseSet is the changes --set asks for, each checked.
func parseSet(set []string, current map[string]string) ([]tuning.Change, error) {
	var changes []tuning.Change
	for _, kv := range set {
		key, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, refused(fmt.Errorf("--set %q: want KEY=VALUE", kv))
		}
		key = strings.TrimSpace(key)
		v, err := tuning.ParseValue(key, value)
		if err != nil {
			return nil, refused(err)
		}
		changes = append(changes, tuning.Change{Key: key, Current: current[key], Proposed: v, Why: tuning.Reason("plan.asked")})
	}
	tuning.SortChanges(changes)
	return changes, nil
}
