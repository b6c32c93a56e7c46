package tui

import (
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/styles"
)

// propose builds the plan from the knobs read and the history: after an
// apply, the guided loop judges the frames since it, and once the table
// has stayed free a while the plan is the way back down. Knobs that
// cannot be written here are left out.
func (t *tunePanel) propose(ctx tuneContext) {
	in := model.NewTuningInputs(t.current, ctx.host, t.entry, ctx.history, ctx.now)
	if t.watching {
		t.loop = model.JudgeLoop(t.appliedAt, ctx.history)
		in = model.NextStep(in, t.loop)
	}
	t.plan = model.ProposePlan(in)
	if t.watching {
		if t.loop.State == model.LoopSettle {
			changes := []model.Change{model.SettleChange(t.loop)}
			t.plan = model.Plan{Changes: changes, WorkingSet: t.loop.PeakWorkingSet(),
				Cost: model.CostOf(t.current, changes, t.entry, ctx.host.MemTotal)}
		}
	}
	if !t.global { // read-only here: propose only what can be written
		var kept []model.Change
		for _, c := range t.plan.Changes {
			if spec, _ := model.Spec(c.Key); !spec.Global {
				kept = append(kept, c)
			}
		}
		t.plan.Changes = kept
	}
}

// Observe follows a new frame: the proposal moves with the demand and
// the loop with the table, unless the operator is editing the plan or
// answering a question about it.
func (t *tunePanel) Observe(ctx tuneContext) {
	if !t.open || !t.loaded || t.editing || t.confirm != "" || t.edited {
		return
	}
	t.propose(ctx)
}

// loopLines are the guided loop's lines and, for each proposed knob that
// a manager owns, who rewrites it and where to set it instead, wrapped to
// width.
func (t *tunePanel) loopLines(st *styles.Styles, width int) []string {
	var lines []string
	if t.watching {
		style := st.Dim
		switch t.loop.State {
		case model.LoopFreed:
			style = st.OK
		case model.LoopPinned:
			style = st.Crit
		case model.LoopSettle:
			style = st.Warn
		}
		say := "loop " + t.loop.Say()
		if t.loop.State == model.LoopPinned || t.loop.State == model.LoopSettle {
			say += " (a applies it)"
		}
		for _, l := range wrapN(say, width, 3) {
			lines = append(lines, style.Render(l))
		}
	}
	for _, c := range t.plan.Changes {
		if note, ok := t.owners[c.Key]; ok {
			for _, l := range wrapN("warning: "+foreign(note), width, 2) {
				lines = append(lines, st.Warn.Render(l))
			}
		}
	}
	return lines
}

// editHint says how to type a value while editing.
const editHint = "type a number (a port range as two: 32768 60999); enter puts it in the plan, esc cancels"
