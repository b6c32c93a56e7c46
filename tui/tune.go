package tui

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/tui/keys"
)

// tunePanel is the tuning panel, a component of one host's console: the
// plan, the selected knob, an edit under way, a pending confirmation,
// and what the last action did. While it is open its keys are its own
// (Update says whether a key was); the console routes it its messages
// and gives it what it reads of the console (tuneContext).
type tunePanel struct {
	tuner tuning.Tuner
	// recorder, when set, keeps applies and undos in the recording.
	recorder Recorder
	keys     keys.KeyMap
	loaded   bool
	knobs    tuning.KnobState
	plan     tuning.Plan
	// contradictions are the diagnosis's disagreements with itself: a
	// defect of tablefull's, shown rather than hidden.
	contradictions []string
	sel            int
	editing        bool
	input          textinput.Model
	confirm        tuneAction // awaiting y/n ("" for none)
	results        []knob.Result
	message        string
	appliedAt      time.Time
	// edited: the operator changed the plan, so it no longer follows the
	// demand; watching: the last action was an apply, and loop is where
	// it has got to.
	edited, watching bool
	loop             tuning.LoopStatus
	// cut are the changes of an apply whose answer the link cut off:
	// read again once samples arrive, to say what it did.
	cut      []tuning.Change
	cutAsked bool
}

// tuneReadMsg carries the knobs read for the panel and what the tuner
// says about where it writes (read in the command: it may stat files).
type tuneReadMsg struct {
	id    int
	knobs tuning.KnobState
	err   error
}

// tuneDoneMsg reports an apply, persist or undo.
type tuneDoneMsg struct {
	id       int
	action   tuneAction
	changes  []tuning.Change
	results  []knob.Result
	files    []string
	warnings []string
	err      error
}

// tuneContext is what the panel reads of the console: its host's id
// (for the panel's messages), the host, the kept history and the frame
// on screen.
type tuneContext struct {
	id      int
	host    model.Host
	history diagnose.Frames
	now     diagnose.Frame
	// open says the panel holds the bottom of the screen; close gives
	// it back.
	open  bool
	close func()
}

func (m tuneReadMsg) hostID() int { return m.id }
func (m tuneDoneMsg) hostID() int { return m.id }

// recordTunedCmd keeps an action and its read-back in the recording; a
// failure to write stops the recording and says so.
func recordTunedCmd(id int, r Recorder, action string, at time.Time, results []knob.Result) tea.Cmd {
	return func() tea.Msg {
		if err := r.Tuned(action, at, results); err != nil {
			return recordMsg{id: id, err: err}
		}
		return nil
	}
}

func readKnobsCmd(id int, t tuning.Tuner) tea.Cmd {
	return func() tea.Msg {
		k, err := t.Read()
		return tuneReadMsg{id: id, knobs: k, err: err}
	}
}

// Open opens the panel and reads the knobs; over a feed that writes
// nothing (a recording, the demo) the plan is the moment's, read-only.
func (t *tunePanel) Open(ctx tuneContext) (cmd tea.Cmd, status string) {
	if _, recorded := t.tuner.(recordedTuner); t.tuner == nil || recorded {
		t.tuner = recordedTuner{at: ctx.now.Sample.Conntrack}
	}
	t.message = ""
	return readKnobsCmd(ctx.id, t.tuner), ""
}

// Update takes the panel's messages, and its keys while it is open; it
// reports whether msg was the panel's.
func (t *tunePanel) Update(msg tea.Msg, ctx tuneContext) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tuneReadMsg:
		t.read(msg, ctx)
		return nil, true
	case tuneDoneMsg:
		return t.done(msg, ctx), true
	case tea.KeyMsg:
		if ctx.open {
			return t.key(msg, ctx)
		}
	}
	return nil, false
}

// read builds the plan from the knobs and the history on screen.
func (t *tunePanel) read(msg tuneReadMsg, ctx tuneContext) {
	if msg.err != nil {
		t.message, t.cutAsked = "read knobs: "+msg.err.Error(), false
		return
	}
	t.knobs, t.loaded, t.edited = msg.knobs, true, false
	if t.cut != nil { // the link is back: say what the cut apply did
		var held int
		if t.message, held = tuning.CutOutcome(t.cut, msg.knobs); held > 0 {
			t.watching, t.appliedAt = true, ctx.now.Sample.Time
		}
		t.cut, t.cutAsked = nil, false
	}
	t.propose(ctx)
}

// key handles a key while the panel is open; it reports whether the key
// was the panel's.
func (t *tunePanel) key(msg tea.KeyMsg, ctx tuneContext) (tea.Cmd, bool) {
	if t.editing {
		switch msg.Type {
		case tea.KeyEnter:
			t.finishEdit(ctx)
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
		if key.Matches(msg, t.keys.Confirm) {
			return t.action(action, ctx), true
		}
		t.message = string(action) + " cancelled"
		return nil, true
	}
	switch {
	case key.Matches(msg, t.keys.Close), key.Matches(msg, t.keys.Tune):
		ctx.close()
	case key.Matches(msg, t.keys.Up):
		t.sel = max(0, t.sel-1)
	case key.Matches(msg, t.keys.Down):
		t.sel = min(len(tuning.Knobs)-1, t.sel+1)
	case key.Matches(msg, t.keys.Edit):
		t.startEdit()
	case key.Matches(msg, t.keys.Apply):
		t.ask(actApply)
	case key.Matches(msg, t.keys.Persist):
		t.ask(actPersist)
	case key.Matches(msg, t.keys.Undo):
		t.ask(actUndo)
	default:
		return nil, false
	}
	return nil, true
}

func (t *tunePanel) ask(action tuneAction) {
	if !t.loaded {
		return
	}
	if action != actUndo && len(t.plan.Changes) == 0 {
		t.message = "nothing to " + string(action)
		if t.plan.HostCommand != "" {
			t.message += " here: the global knobs are the host's (run the command above on the host)"
		}
		return
	}
	if action == actApply && t.plan.Cost.Level() == verdict.SevCrit {
		t.message = fmt.Sprintf("refused: %.0f %% of RAM is over the %.0f %% limit (tablefull tune --force can)", t.plan.Cost.PctOfRAM, tuning.MemRefusePct)
		return
	}
	t.confirm = action
	t.message = fmt.Sprintf("%s %d change(s)? y/n", action, len(t.plan.Changes))
	if action == actUndo {
		t.message = "undo the last apply? y/n"
	}
}

// knobKey is the knob at row i of the panel.
func knobKey(i int) string { return tuning.Knobs[i].Key }

func (t *tunePanel) startEdit() {
	if !t.loaded {
		return
	}
	in := textinput.New()
	in.Prompt = knobKey(t.sel) + " = "
	in.SetValue(t.proposed(knobKey(t.sel)))
	in.Focus()
	t.input, t.editing = in, true
}

// finishEdit validates the edited value and puts it in the plan.
func (t *tunePanel) finishEdit(ctx tuneContext) {
	k := knobKey(t.sel)
	v, err := tuning.ParseValue(k, t.input.Value())
	if err != nil {
		t.message = err.Error()
		return
	}
	t.editing = false
	var kept []tuning.Change
	for _, c := range t.plan.Changes {
		if c.Key != k {
			kept = append(kept, c)
		}
	}
	cur := t.knobs.Current[k]
	if v != cur {
		kept = append(kept, tuning.Change{Key: k, Current: cur, Proposed: v, Why: tuning.Reason("plan.edited")})
	}
	tuning.SortChanges(kept)
	t.plan.Changes, t.edited = kept, true
	t.plan.Cost = tuning.CostOf(t.knobs.Current, kept, t.knobs.EntryBytes, ctx.host.MemTotal)
	t.message = ""
}

// proposed is the value the plan gives k, or its current one.
func (t *tunePanel) proposed(k string) string {
	for _, c := range t.plan.Changes {
		if c.Key == k {
			return c.Proposed
		}
	}
	return t.knobs.Current[k]
}

// action runs an apply, persist or undo as a command.
func (t *tunePanel) action(action tuneAction, ctx tuneContext) tea.Cmd {
	tu, id := t.tuner, ctx.id
	changes := append([]tuning.Change(nil), t.plan.Changes...)
	count := ctx.now.Sample.Conntrack.Count
	t.message = string(action) + "…"
	return func() tea.Msg {
		msg := tuneDoneMsg{id: id, action: action, changes: changes}
		switch action {
		case actApply:
			msg.results, msg.err = tu.Apply(changes, count)
		case actPersist:
			msg.files, msg.warnings, msg.err = tu.Persist(changes)
		case actUndo:
			msg.results, msg.err = tu.Undo()
		}
		return msg
	}
}

// done shows what an action did and marks an apply on the timeline.
func (t *tunePanel) done(msg tuneDoneMsg, ctx tuneContext) tea.Cmd {
	if len(msg.results) > 0 {
		t.results = msg.results
	}
	if errors.Is(msg.err, tuning.ErrLinkCut) && msg.action == actApply {
		t.cut = msg.changes
		t.message = "apply: the link was cut before the host answered: what it did is read when it is back"
		return nil
	}
	if msg.err != nil {
		t.message = string(msg.action) + ": " + msg.err.Error()
		if len(msg.results) == 0 && len(msg.files) == 0 {
			return nil
		}
		return readKnobsCmd(ctx.id, t.tuner) // partly written: show what holds now
	}
	switch msg.action {
	case actApply, actUndo:
		t.knobs.Current = maps.Clone(t.knobs.Current) // what reads back now, until the knobs are read again
		for _, r := range msg.results {
			if t.knobs.Current != nil && r.After != "" {
				t.knobs.Current[r.Key] = r.After
			}
		}
		t.watching = msg.action == actApply
		t.appliedAt = time.Now()
		if n := ctx.history.Len(); n > 0 {
			t.appliedAt = ctx.history.At(n - 1).Sample.Time
		}
		t.message = string(msg.action) + " done: ▲ marks it under the chart"
		if t.recorder != nil && len(msg.results) > 0 {
			return tea.Batch(readKnobsCmd(ctx.id, t.tuner), recordTunedCmd(ctx.id, t.recorder, string(msg.action), t.appliedAt, msg.results))
		}
	case actPersist:
		t.message = "persisted: " + strings.Join(msg.files, ", ")
		for _, w := range msg.warnings { // how it applies at boot, then what may win over it
			t.message += "; " + w
		}
	}
	return readKnobsCmd(ctx.id, t.tuner)
}
