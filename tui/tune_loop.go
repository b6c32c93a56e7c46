package tui

import (
	"maps"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/tui/styles"
)

// propose builds the plan as every surface does (tuning.Diagnose):
// after an apply the guided loop judges the frames since it, and once
// the table has stayed free a while the plan is the way back down; the
// global knobs this tuner cannot write are proposed from the host.
func (t *tunePanel) propose(ctx tuneContext) {
	g := tuning.Guide{Knobs: t.knobs, Host: ctx.host, Measured: ctx.history, Now: ctx.now}
	if t.watching {
		g.AppliedAt = t.appliedAt
	}
	d := tuning.Diagnose(g)
	t.plan, t.loop, t.contradictions = d.Plan, d.Loop, d.Contradictions()
}

// followLive keeps the knobs the samples read in step with them: a cap
// or a TIME_WAIT hold changed from elsewhere (the host's command for a
// namespace's global knobs) is what the next plan starts from, and a cap
// changed from elsewhere is watched by the loop as an apply from here.
func (t *tunePanel) followLive(now diagnose.Frame) {
	c := now.Sample.Conntrack
	if c.Status != model.TableTracked || c.Max == 0 || t.knobs.Current == nil {
		return
	}
	capMax := strconv.FormatUint(c.Max, 10)
	if t.knobs.Current[knob.Max] != capMax && !t.edited {
		// raised from elsewhere (the host's command): watched as an apply
		t.watching, t.appliedAt = true, now.Sample.Time.Add(-time.Millisecond)
	}
	t.knobs.Current = maps.Clone(t.knobs.Current) // the tuner's map is its own
	t.knobs.Current[knob.Max] = capMax
	if c.TimeWaitHold > 0 {
		t.knobs.Current[knob.TimeWait] = strconv.FormatUint(c.TimeWaitHold, 10)
	}
}

// Observe follows a new frame: the proposal moves with the demand and
// the loop with the table, unless the operator is editing the plan or
// answering a question about it.
//
// After an apply whose answer the link cut off, the first sample (the
// link is back) reads the knobs again to say what it did.
func (t *tunePanel) Observe(ctx tuneContext) tea.Cmd {
	if t.cut != nil && !t.cutAsked && t.tuner != nil {
		t.cutAsked = true
		return readKnobsCmd(ctx.id, t.tuner)
	}
	if !ctx.open || !t.loaded || t.editing || t.confirm != "" || t.edited {
		return nil
	}
	t.followLive(ctx.now)
	t.propose(ctx)
	return nil
}

// loopLines are the guided loop's lines and, for each proposed knob that
// a manager owns, who rewrites it and where to set it instead, wrapped to
// width.
func (t *tunePanel) loopLines(st *styles.Styles, width int) []string {
	var lines []string
	if t.watching {
		style := st.Dim
		switch t.loop.State {
		case tuning.LoopFreed:
			style = st.OK
		case tuning.LoopPinned:
			style = st.Crit
		case tuning.LoopSettle:
			style = st.Warn
		}
		say := "loop " + t.loop.Say()
		if t.loop.State == tuning.LoopPinned || t.loop.State == tuning.LoopSettle {
			say += " (a applies it)"
		}
		for _, l := range wrapN(say, width, 3) {
			lines = append(lines, style.Render(l))
		}
	}
	if t.plan.HostCommand != "" {
		for _, l := range wrapN("global knobs: read-only here; on the host run: "+foreign(t.plan.HostCommand), width, 3) {
			lines = append(lines, st.Warn.Render(l))
		}
	}
	if t.plan.Refusal != "" {
		for _, l := range wrapN("refused: "+foreign(t.plan.Refusal), width, 2) {
			lines = append(lines, st.Crit.Render(l))
		}
	}
	for _, c := range t.contradictions {
		for _, l := range wrapN("tablefull disagrees with itself (a defect; please report it): "+foreign(c), width, 2) {
			lines = append(lines, st.Crit.Render(l))
		}
	}
	for _, c := range append(t.plan.Changes, t.plan.FromHost...) {
		if note, ok := t.knobs.Owners[c.Key]; ok {
			for _, l := range wrapN("warning: "+foreign(note), width, 2) {
				lines = append(lines, st.Warn.Render(l))
			}
		}
	}
	return lines
}

// noteLines are what the plan could not know or was sized on, wrapped
// to width: they give way to the knobs when the panel is short.
func (t *tunePanel) noteLines(st *styles.Styles, width int) []string {
	var lines []string
	for _, n := range t.plan.Notes {
		for _, l := range wrapN(foreign(n), width, 3) {
			lines = append(lines, st.Dim.Render(l))
		}
	}
	return lines
}

// editHint says how to type a value while editing.
const editHint = "type a number (a port range as two: 32768 60999); enter puts it in the plan, esc cancels"
