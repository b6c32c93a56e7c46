package tunecmd

import (
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// LoopStep is one step of --until-free as --json prints it, a line each.
type LoopStep struct {
	Schema string      `json:"schema"`
	Step   int         `json:"step"`
	Plan   tuning.Plan `json:"plan"`
	// Diagnosis is the moment the step's plan was made for.
	Diagnosis *tuning.Said  `json:"diagnosis,omitempty"`
	Results   []knob.Result `json:"results,omitempty"`
	State     string        `json:"state"`
	Said      string        `json:"said"`
	// SettleMax is the smaller table the loop would settle down to, once
	// the table has stayed free SettleAfterS seconds (0: none smaller).
	SettleMax    uint64  `json:"settle_max,omitempty"`
	SettleAfterS float64 `json:"settle_after_s,omitempty"`
}

// untilFree is the guided loop without a screen: measure, propose, apply
// (with --yes), watch, and again while the table is still pinned, at most
// t.Steps times and within the memory rules. Every step is recorded for
// --undo, which restores the values before the first. Each step is the
// one plan (tuning.Diagnose) on the frames since the last apply; global
// knobs a tuner in a child namespace cannot write are left to the host.
func untilFree(w io.Writer, t CommandOptions, tgt tuning.Tuner, feed model.Feed) error {
	if !t.Yes {
		return refused(fmt.Errorf("--until-free applies each step: add --yes (tablefull tune --dry-run shows the first)"))
	}
	steps, watch := max(1, t.Steps), max(tuning.LoopWatch+2*time.Second, t.Watch)
	an := diagnose.NewAnalyzer(diagnose.HistoryFor(t.Observe+time.Duration(steps)*watch, time.Second))
	say := func(format string, a ...any) {
		if !t.JSON {
			fmt.Fprintf(w, format+"\n", a...)
		}
	}
	say("measuring %s for %s (--observe)…", measuredName(t), t.Observe)
	last, err := observe(feed, an, max(t.Observe, 2*time.Second))
	if err != nil {
		return err
	}
	var st tuning.LoopStatus
	var applied time.Time
	for step := 1; step <= steps; step++ {
		knobs, err := tgt.Read()
		if err != nil {
			return err
		}
		// a stream's host is known after its first sample
		d := tuning.Diagnose(tuning.Guide{Knobs: knobs, Host: feed.Host(), Measured: an.Frames(), Now: last, AppliedAt: applied})
		if len(d.Plan.Changes) == 0 {
			if step == 1 && !last.Pinned && last.Rates.Drops() == 0 {
				printPlan(w, d.Plan, nil)
				return nil
			}
			if d.Plan.HostCommand != "" {
				return exitcode.Error{Code: exitcode.Pinned, Err: fmt.Errorf("step %d: still pinned; the global knobs are the host's: run on the host: %s", step, d.Plan.HostCommand)}
			}
			return exitcode.Error{Code: exitcode.Pinned, Err: fmt.Errorf("step %d: still pinned and nothing left to propose here (%s)", step, d.Plan.Refusal)}
		}
		if d.Plan.Cost.Level() == verdict.SevCrit && !t.Force {
			return refused(fmt.Errorf("step %d: the table would take %.0f %% of RAM (over %.0f %%): stopped; pass --force if you mean it", step, d.Plan.Cost.PctOfRAM, tuning.MemRefusePct))
		}
		say("step %d of at most %d:", step, steps)
		if !t.JSON {
			printPlan(w, d.Plan, nil)
		}
		applied = time.Now()
		res, err := tgt.Apply(d.Plan.Changes, last.Sample.Conntrack.Count)
		if !t.JSON {
			printResults(w, tuneReport{Results: res})
		}
		if err != nil {
			if len(res) > 0 {
				return exitcode.Error{Code: exitcode.Partial, Err: fmt.Errorf("step %d: %w (tablefull tune --undo restores what was written)", step, err)}
			}
			return refused(fmt.Errorf("step %d: %w", step, err))
		}
		say("undo: tablefull tune%s --undo restores the values before step 1", netnsFlag(t))
		for _, r := range res {
			if !r.Verified {
				return exitcode.Error{Code: exitcode.Unverified, Err: fmt.Errorf("step %d: %s reads back %q, not %q", step, r.Key, r.After, r.Wanted)}
			}
		}
		st, last = watchStep(feed, an, applied, watch, last)
		say("step %d: %s", step, st.Say())
		out := LoopStep{Schema: StepSchema, Step: step, Plan: d.Plan, Diagnosis: d.Said(), Results: res, State: st.State.String(), Said: st.Say()}
		if settle := tuning.SettleMax(st); settle < st.Max {
			out.SettleMax, out.SettleAfterS = settle, st.SettleAfter.Seconds()
		}
		if t.JSON {
			if err := writeJSONValue(w, out); err != nil {
				return err
			}
		}
		if st.State == tuning.LoopFreed || st.State == tuning.LoopSettle {
			if out.SettleMax > 0 {
				say("settle: once it has stayed free %s, %s entries hold the peak working set seen (%s) with half again to spare: tablefull tune%s --set %s=%d --yes",
					units.Dur(st.SettleAfter), units.Int(out.SettleMax), units.Int(st.PeakWorkingSet()), netnsFlag(t), knob.Max, out.SettleMax)
			}
			return nil
		}
	}
	return exitcode.Error{Code: exitcode.Pinned, Err: fmt.Errorf("still pinned after %d steps: %s", steps, st.Say())}
}

// watchStep watches the table after an apply until the loop can say: at
// once when drops go on, otherwise after tuning.LoopWatch, at most watch.
func watchStep(feed model.Feed, an *diagnose.Analyzer, applied time.Time, watch time.Duration, last diagnose.Frame) (tuning.LoopStatus, diagnose.Frame) {
	var st tuning.LoopStatus
	for end := time.Now().Add(watch); time.Now().Before(end); {
		s, err := feed.Next()
		if model.FeedEnded(err) {
			break // nothing more to watch: the status so far
		}
		if err != nil {
			continue
		}
		last = an.Add(s)
		st = tuning.JudgeLoop(applied, an.Frames())
		if (st.State == tuning.LoopPinned && st.Drops > 0) || (st.State != tuning.LoopWatching && st.Watched >= tuning.LoopWatch) {
			break
		}
	}
	return st, last
}

// netnsFlag repeats --netns for the commands tune suggests.
func netnsFlag(t CommandOptions) string {
	if t.NetnsPath == "" {
		return ""
	}
	return " --netns " + t.NetnsPath
}
