package tunecmd

import (
	"fmt"
	"io"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/story"
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
	// Workload, on the step that freed the table, is the workload's own
	// figures before the first apply and after the last.
	Workload *LoopWorkload `json:"workload,omitempty"`
}

// LoopWorkload is the workload before the loop's first apply (what
// --observe measured) and after its last (what the last step watched),
// the interval each apply fell in left out: the figures that say
// whether the fix helped, not only the table.
type LoopWorkload struct {
	Before WorkloadWindow `json:"before"`
	After  WorkloadWindow `json:"after"`
}

// WorkloadWindow is a stretch's drops and admitted new connections a
// second, and its length.
type WorkloadWindow struct {
	Seconds float64 `json:"seconds"`
	DropsPS float64 `json:"drops_per_second"`
	NewPS   float64 `json:"new_per_second"`
}

// workload is the loop's workload before first and after last, the two
// applies' times.
func workload(frames diagnose.Frames, first, last time.Time) *LoopWorkload {
	// the first sample after the last apply counts the interval it fell in
	i := 0
	for i < frames.Len() && !frames.At(i).Sample.Time.After(last) {
		i++
	}
	if i == frames.Len() {
		return nil
	}
	b, a := story.Between(frames, time.Time{}, first), story.Between(frames, frames.At(i).Sample.Time, time.Time{})
	window := func(w story.Window) WorkloadWindow {
		return WorkloadWindow{Seconds: w.To.Sub(w.From).Seconds(), DropsPS: w.DropsPS, NewPS: w.NewConnsPS}
	}
	return &LoopWorkload{Before: window(b), After: window(a)}
}

// Say is the workload's line: "drops/s 5.3 → 0, new connections
// admitted/s 12 → 73 (over 10 s before the first step, 5 s after the
// last)".
func (w LoopWorkload) Say() string {
	n := func(v float64) string { return verdict.N("", v, verdict.PerSecond).String() }
	return fmt.Sprintf("the workload: drops/s %s → %s, new connections admitted/s %s → %s (over %s before the first step, %s after the last)",
		n(w.Before.DropsPS), n(w.After.DropsPS), n(w.Before.NewPS), n(w.After.NewPS),
		units.Dur(time.Duration(w.Before.Seconds*float64(time.Second))), units.Dur(time.Duration(w.After.Seconds*float64(time.Second))))
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
	var applied, firstApplied time.Time
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
		if step == 1 {
			firstApplied = applied
		}
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
		out := closeStep(LoopStep{Schema: StepSchema, Step: step, Plan: d.Plan, Diagnosis: d.Said(), Results: res, State: st.State.String(), Said: st.Say()},
			st, an.Frames(), firstApplied, applied)
		if t.JSON {
			if err := writeJSONValue(w, out); err != nil {
				return err
			}
		}
		if st.State == tuning.LoopFreed || st.State == tuning.LoopSettle {
			sayFreed(say, out, st, t)
			return nil
		}
	}
	return exitcode.Error{Code: exitcode.Pinned, Err: fmt.Errorf("still pinned after %d steps: %s", steps, st.Say())}
}

// closeStep adds what a step's status offers: the table to settle down
// to, and on the step that freed it the workload before and after.
func closeStep(out LoopStep, st tuning.LoopStatus, frames diagnose.Frames, firstApplied, applied time.Time) LoopStep {
	if settle := tuning.SettleMax(st); settle < st.Max {
		out.SettleMax, out.SettleAfterS = settle, st.SettleAfter.Seconds()
	}
	if st.State == tuning.LoopFreed || st.State == tuning.LoopSettle {
		out.Workload = workload(frames, firstApplied, applied)
	}
	return out
}

// sayFreed is the loop's closing lines once free: the workload before
// and after, and the table to settle down to.
func sayFreed(say func(string, ...any), out LoopStep, st tuning.LoopStatus, t CommandOptions) {
	if out.Workload != nil {
		say("%s", out.Workload.Say())
	}
	if out.SettleMax > 0 {
		say("settle: once it has stayed free %s, %s entries hold the peak working set seen (%s) with half again to spare: tablefull tune%s --set %s=%d --yes",
			units.Dur(st.SettleAfter), units.Int(out.SettleMax), units.Int(st.PeakWorkingSet()), netnsFlag(t), knob.Max, out.SettleMax)
	}
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
