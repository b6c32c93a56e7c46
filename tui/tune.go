package tui

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
)

// tuneState is the tuning panel: the plan, the selected knob, an edit
// under way, a pending confirmation, and what the last action did.
type tuneState struct {
	open      bool
	loaded    bool
	current   map[string]string
	entry     uint64
	plan      model.Plan
	sel       int
	editing   bool
	input     textinput.Model
	confirm   string // "apply", "persist", "undo" awaiting y/n
	results   []model.KnobResult
	message   string
	note      string
	appliedAt time.Time
}

// tuneReadMsg carries the knobs read for the panel, and what the tuner
// says about where it writes (asked in the command: it may stat files).
type tuneReadMsg struct {
	id      int
	current map[string]string
	entry   uint64
	global  bool
	note    string
	err     error
}

// tuneDoneMsg reports an apply, persist or undo.
type tuneDoneMsg struct {
	id       int
	action   string
	results  []model.KnobResult
	files    []string
	warnings []string
	err      error
}

func (m tuneReadMsg) hostID() int { return m.id }
func (m tuneDoneMsg) hostID() int { return m.id }

func readKnobsCmd(id int, t Tuner) tea.Cmd {
	return func() tea.Msg {
		cur, entry, err := t.Read()
		return tuneReadMsg{id: id, current: cur, entry: entry, global: t.Global(), note: t.Note(), err: err}
	}
}

// openTuning opens the panel and reads the knobs.
func (a *App) openTuning() tea.Cmd {
	if a.opts.Tuner == nil {
		a.status = "tuning works on the local host and its namespaces; not over this feed yet"
		return nil
	}
	a.tune.open, a.tune.message = true, ""
	a.refreshChart()
	return readKnobsCmd(a.id, a.opts.Tuner)
}

// tuneRead builds the plan from the knobs and the history on screen.
func (a *App) tuneRead(msg tuneReadMsg) {
	if msg.err != nil {
		a.tune.message = "read knobs: " + msg.err.Error()
		return
	}
	in := model.NewTuningInputs(msg.current, a.host, msg.entry, a.an.Frames(), a.frame())
	a.tune.current, a.tune.entry, a.tune.loaded = msg.current, msg.entry, true
	a.tune.plan = model.ProposePlan(in)
	a.tune.note = msg.note
	if !msg.global { // read-only here: propose only what can be written
		var kept []model.Change
		for _, c := range a.tune.plan.Changes {
			if spec, _ := model.Spec(c.Key); !spec.Global {
				kept = append(kept, c)
			}
		}
		a.tune.plan.Changes = kept
	}
}

// tuneKey handles a key while the panel is open; it reports whether the
// key was the panel's.
func (a *App) tuneKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	t := &a.tune
	if t.editing {
		switch msg.Type {
		case tea.KeyEnter:
			a.finishEdit()
		case tea.KeyEsc:
			t.editing = false
		default:
			var cmd tea.Cmd
			t.input, cmd = t.input.Update(msg)
			return cmd, true
		}
		return nil, true
	}
	if t.confirm != "" {
		action := t.confirm
		t.confirm = ""
		if key.Matches(msg, a.keys.Confirm) {
			return a.tuneAction(action), true
		}
		t.message = action + " cancelled"
		return nil, true
	}
	switch {
	case key.Matches(msg, a.keys.Close), key.Matches(msg, a.keys.Tune):
		t.open = false
		a.refreshChart()
	case key.Matches(msg, a.keys.Up):
		t.sel = max(0, t.sel-1)
	case key.Matches(msg, a.keys.Down):
		t.sel = min(len(model.Knobs)-1, t.sel+1)
	case key.Matches(msg, a.keys.Edit):
		a.startEdit()
	case key.Matches(msg, a.keys.Apply):
		a.ask("apply")
	case key.Matches(msg, a.keys.Persist):
		a.ask("persist")
	case key.Matches(msg, a.keys.Undo):
		a.ask("undo")
	default:
		return nil, false
	}
	return nil, true
}

func (a *App) ask(action string) {
	t := &a.tune
	if !t.loaded {
		return
	}
	if action != "undo" && len(t.plan.Changes) == 0 {
		t.message = "nothing to " + action
		return
	}
	if action == "apply" && t.plan.Cost.Level() == model.SevCrit {
		t.message = fmt.Sprintf("refused: %.0f %% of RAM is over the %.0f %% limit (tablefull tune --force can)", t.plan.Cost.PctOfRAM, model.MemRefusePct)
		return
	}
	t.confirm = action
	t.message = fmt.Sprintf("%s %d change(s)? y/n", action, len(t.plan.Changes))
	if action == "undo" {
		t.message = "undo the last apply? y/n"
	}
}

// knobKey is the knob at row i of the panel.
func knobKey(i int) string { return model.Knobs[i].Key }

func (a *App) startEdit() {
	t := &a.tune
	if !t.loaded {
		return
	}
	in := textinput.New()
	in.Prompt = knobKey(t.sel) + " = "
	in.SetValue(a.proposed(knobKey(t.sel)))
	in.Focus()
	t.input, t.editing = in, true
}

// finishEdit validates the edited value and puts it in the plan.
func (a *App) finishEdit() {
	t := &a.tune
	k := knobKey(t.sel)
	v, err := model.ParseValue(k, t.input.Value())
	if err != nil {
		t.message = err.Error()
		return
	}
	t.editing = false
	var kept []model.Change
	for _, c := range t.plan.Changes {
		if c.Key != k {
			kept = append(kept, c)
		}
	}
	if v != t.current[k] {
		kept = append(kept, model.Change{Key: k, Current: t.current[k], Proposed: v, Why: "edited"})
	}
	model.SortChanges(kept)
	t.plan.Changes = kept
	t.plan.Cost = model.CostOf(t.current, kept, t.entry, a.host.MemTotal)
	t.message = ""
}

// proposed is the value the plan gives k, or its current one.
func (a *App) proposed(k string) string {
	for _, c := range a.tune.plan.Changes {
		if c.Key == k {
			return c.Proposed
		}
	}
	return a.tune.current[k]
}

// tuneAction runs an apply, persist or undo as a command.
func (a *App) tuneAction(action string) tea.Cmd {
	tu, id := a.opts.Tuner, a.id
	changes := append([]model.Change(nil), a.tune.plan.Changes...)
	count := a.frame().Sample.Conntrack.Count
	a.tune.message = action + "…"
	return func() tea.Msg {
		msg := tuneDoneMsg{id: id, action: action}
		switch action {
		case "apply":
			msg.results, msg.err = tu.Apply(changes, count)
		case "persist":
			msg.files, msg.warnings, msg.err = tu.Persist(changes)
		case "undo":
			msg.results, msg.err = tu.Undo()
		}
		return msg
	}
}

// tuneDone shows what an action did and marks an apply on the timeline.
func (a *App) tuneDone(msg tuneDoneMsg) tea.Cmd {
	t := &a.tune
	if len(msg.results) > 0 {
		t.results = msg.results
	}
	if msg.err != nil {
		t.message = msg.action + ": " + msg.err.Error()
		if len(msg.results) == 0 && len(msg.files) == 0 {
			return nil
		}
		return readKnobsCmd(a.id, a.opts.Tuner) // partly written: show what holds now
	}
	switch msg.action {
	case "apply", "undo":
		t.appliedAt = time.Now()
		if last, ok := a.an.Frames().Last(); ok {
			t.appliedAt = last.Sample.Time
		}
		t.message = msg.action + " done: ▲ marks it under the chart"
		a.refreshChart()
	case "persist":
		t.message = fmt.Sprintf("persisted: %v", msg.files)
		for _, w := range msg.warnings {
			t.message += "; warning: " + w
		}
	}
	return readKnobsCmd(a.id, a.opts.Tuner)
}
