package tui

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/tuning/surfacetest"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/tui/styles"
)

type fakeTuner struct {
	values  map[string]string
	applied []tuning.Change
	// child: the tuner runs inside a child namespace (global knobs
	// read-only).
	child bool
}

func (f *fakeTuner) Read() (tuning.KnobState, error) {
	return tuning.KnobState{Current: maps.Clone(f.values), EntryBytes: 256, Global: !f.child}, nil
}
func (f *fakeTuner) Persist([]tuning.Change) ([]string, []string, error) {
	return []string{"/etc/sysctl.d/99-tablefull.conf"}, nil, nil
}
func (f *fakeTuner) Undo() ([]knob.Result, error) { return nil, nil }
func (f *fakeTuner) Apply(cs []tuning.Change, _ uint64) ([]knob.Result, error) {
	f.applied = cs
	var out []knob.Result
	for _, c := range cs {
		f.values[c.Key] = c.Proposed
		out = append(out, knob.Result{Key: c.Key, Wanted: c.Proposed, After: c.Proposed, Verified: true})
	}
	return out, nil
}

// run feeds a key and executes the command chain it returns, as the
// program would (one level deep, enough for read and apply).
func run(a *App, msg tea.Msg) {
	_, cmd := a.Update(msg)
	for range 3 {
		if cmd == nil {
			return
		}
		next := cmd()
		if next == nil {
			return
		}
		_, cmd = a.Update(next)
	}
}

func TestTuningPanel(t *testing.T) {
	tu := &fakeTuner{values: map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120",
		knob.Somaxconn: "4096", knob.SynBacklog: "512", knob.PortRange: "32768 60999", knob.TwReuse: "2"}}
	a := tunedAt21(t, Options{Interval: time.Second, Tuner: tu})
	flat := strings.Join(strings.Fields(a.View()), " ")
	for _, want := range []string{"4096 → 8192", "120 → 30", "memory"} {
		if !strings.Contains(flat, want) {
			t.Fatalf("panel lacks %q:\n%s", want, a.View())
		}
	}
	// Edit somaxconn (row 3) to a bad value, then a good one.
	for range 3 {
		run(a, tea.KeyMsg{Type: tea.KeyDown})
	}
	run(a, tea.KeyMsg{Type: tea.KeyEnter})
	run(a, tea.KeyMsg{Type: tea.KeyCtrlU})
	run(a, typed("-1"))
	run(a, tea.KeyMsg{Type: tea.KeyEnter})
	if !strings.Contains(a.View(), "negative") {
		t.Errorf("a bad value was not refused:\n%s", a.View())
	}
	run(a, tea.KeyMsg{Type: tea.KeyCtrlU})
	run(a, typed("16384"))
	run(a, tea.KeyMsg{Type: tea.KeyEnter})
	run(a, typed("a"))
	if !strings.Contains(a.View(), "apply 4 change(s)? y/n") || tu.applied != nil {
		t.Fatalf("apply did not ask first:\n%s", a.View())
	}
	run(a, typed("y"))
	if len(tu.applied) != 4 || tu.values[knob.Somaxconn] != "16384" {
		t.Errorf("applied %+v", tu.applied)
	}
	for _, s := range incident(30)[21:] {
		a.Update(sampleMsg{s: s})
	}
	if v := a.View(); !strings.Contains(v, "verified") || !strings.Contains(v, "before → after") || !strings.Contains(v, "▲") {
		t.Errorf("no verified results or before/after:\n%s", v)
	}
	run(a, tea.KeyMsg{Type: tea.KeyEsc})
	if a.panel == panelTuning {
		t.Errorf("esc did not close the panel")
	}
}

// runAll executes msg's command chain, every command of a batch too.
func runAll(a *App, msg tea.Msg) {
	_, cmd := a.Update(msg)
	pending := []tea.Cmd{cmd}
	for steps := 0; len(pending) > 0 && steps < 20; steps++ {
		c := pending[0]
		pending = pending[1:]
		if c == nil {
			continue
		}
		switch m := c().(type) {
		case nil:
		case tea.BatchMsg:
			pending = append(pending, m...)
		default:
			_, next := a.Update(m)
			pending = append(pending, next)
		}
	}
}

// TestApplyIsRecorded: an apply from the panel goes into the recording
// with the kernel's read-back, so the report can tell it.
// tunedAt21 is a console of a 5.15 host with 512 MB, 21 seconds into
// the incident, with t pressed.
func tunedAt21(t *testing.T, o Options) *App {
	t.Helper()
	a := New(newScriptFeed(t, nil), o)
	a.host.Kernel, a.host.MemTotal = "5.15.0", 512<<20
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for _, s := range incident(21) {
		a.Update(sampleMsg{s: s})
	}
	run(a, typed("t"))
	return a
}

// TestRecordedMomentsPlan: over a feed that writes nothing (a replay),
// t shows the plan of the moment on screen from the knobs its sample
// carries, and an apply says it is read-only instead of writing.
func TestRecordedMomentsPlan(t *testing.T) {
	a := tunedAt21(t, Options{Interval: time.Second})
	flat := strings.Join(strings.Fields(a.View()), " ")
	if !strings.Contains(flat, "4096 → 8192") || strings.Contains(a.status.text(), "not over this feed") || !strings.Contains(flat, "read-only: the recorded moment's plan") || strings.Contains(flat, "a apply") {
		t.Fatalf("a replay's t: status %q\n%s", a.status.text(), a.View())
	}
	run(a, typed("a"))
	run(a, typed("y"))
	if flat := strings.Join(strings.Fields(a.View()), " "); !strings.Contains(flat, "read-only: this is a recorded moment's plan") {
		t.Errorf("an apply over a replay:\n%s", a.View())
	}
}

func TestApplyIsRecorded(t *testing.T) {
	tu := &fakeTuner{values: map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120",
		knob.Somaxconn: "4096", knob.SynBacklog: "512", knob.PortRange: "32768 60999", knob.TwReuse: "2"}}
	rec := &fakeRecorder{}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Tuner: tu, Recorder: rec})
	a.host.Kernel, a.host.MemTotal = "5.15.0", 512<<20
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	for _, s := range incident(21) {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("t"))
	runAll(a, typed("a"))
	runAll(a, typed("y"))
	if len(rec.tuned) == 0 || !strings.HasPrefix(rec.tuned[0], "apply "+knob.Max+"=") {
		t.Errorf("the apply was not recorded: %q", rec.tuned)
	}
}

// TestNothingToPropose: a plan without changes says so and why, instead
// of a list of current values alone.
func TestNothingToPropose(t *testing.T) {
	cur := map[string]string{knob.Max: "262144", knob.TimeWait: "120"}
	p := &tunePanel{loaded: true, knobs: tuning.KnobState{Current: cur}, plan: tuning.ProposePlan(tuning.Inputs{Current: cur, PeakRate: 10, PeakCount: 525})}
	view := strings.Join(p.View(styles.DefaultStyles(), 20, 200, func() []diagnose.Frame { return nil }), "\n")
	if !strings.Contains(view, "nothing to propose: the current values hold this table's peak working set") || !strings.Contains(view, "(1,200 entries)") {
		t.Errorf("no proposal, no reason:\n%s", view)
	}
}

// ownedTuner is a fakeTuner on a host where kube-proxy owns max.
type ownedTuner struct{ fakeTuner }

func (o *ownedTuner) Read() (tuning.KnobState, error) {
	k, err := o.fakeTuner.Read()
	k.Owners = map[string]string{knob.Max: "kube-proxy (pid 77) writes " + knob.Max + " = max(32,768 × CPUs, 131,072) at its start: set it in /etc/kube-proxy/config.yaml"}
	return k, err
}

// TestPanelFollowsDemandAndOwners: the open panel's proposal follows the
// frames as they come, except once the operator edited it; a knob that
// kube-proxy owns is said to be its.
func TestPanelFollowsDemandAndOwners(t *testing.T) {
	tu := &ownedTuner{fakeTuner{values: map[string]string{knob.Max: "262144", knob.Hashsize: "262144", knob.TimeWait: "120"}}}
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Tuner: tu})
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 50})
	quiet := incident(5) // 525 entries of 262,144: nothing to propose
	for _, s := range quiet {
		a.Update(sampleMsg{s: s})
	}
	runAll(a, typed("t"))
	if len(a.tune.plan.Changes) != 0 {
		t.Fatalf("a quiet table has a plan: %+v", a.tune.plan.Changes)
	}
	busy := after(quiet, 3, 300000, 262144, 500, 5000) // past the cap, 5,000 new/s
	for _, s := range busy[len(quiet):] {
		a.Update(sampleMsg{s: s})
	}
	if a.tune.proposed(knob.Max) == "262144" {
		t.Fatalf("the proposal did not follow the demand: %+v", a.tune.plan.Changes)
	}
	if v := strings.Join(strings.Fields(a.View()), " "); !strings.Contains(v, "warning: kube-proxy (pid 77) writes") {
		t.Errorf("kube-proxy's knob is not said to be its:\n%s", a.View())
	}
	a.tune.plan.Changes, a.tune.edited = nil, true // as finishEdit leaves it
	a.Update(sampleMsg{s: after(busy, 1, 300000, 262144, 500, 5000)[len(busy)]})
	if len(a.tune.plan.Changes) != 0 {
		t.Errorf("an edited plan was replaced: %+v", a.tune.plan.Changes)
	}
}

// TestPanelSaysWhereTheFixIs: on a NAT's drops far from the cap the panel
// refuses with where the fix is (the ruleset), as tablefull tune does
// from the same plan; on stale timeouts with no drops it says nothing to
// propose and how they are freed.
func TestPanelSaysWhereTheFixIs(t *testing.T) {
	for kind, want := range map[verdict.Kind]string{verdict.NATPorts: "the fix is in the ruleset", verdict.StaleTimeouts: "conntrack -D frees them"} {
		plan, cur := surfacetest.FarFromTheCap(kind)
		p := &tunePanel{loaded: true, knobs: tuning.KnobState{Current: cur}, plan: plan}
		view := strings.Join(p.View(styles.DefaultStyles(), 30, 200, func() []diagnose.Frame { return nil }), "\n")
		if !strings.Contains(strings.Join(strings.Fields(view), " "), want) {
			t.Errorf("%s: the panel does not say %q:\n%s", kind, want, view)
		}
	}
}

// TestPanelSaysItsOwnContradiction: a diagnosis that disagrees with
// itself (a plan proposing a knob its verdict rules out) is shown on the
// panel as tablefull's defect, not drawn as if it were true.
func TestPanelSaysItsOwnContradiction(t *testing.T) {
	cur := map[string]string{knob.Max: "400", knob.TimeWait: "120"}
	full := verdict.Verdict{Kind: verdict.TableFull, Severity: verdict.SevCrit, Clauses: []verdict.Clause{verdict.Prose("test", "nothing to evict …, not the TIME_WAIT hold")}, RulesOut: []string{knob.TimeWait}}
	now := diagnose.Frame{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: 400, Peak: 400, Max: 400, TimeWaitHold: 120}}, Verdicts: []verdict.Verdict{full}}
	p := &tunePanel{loaded: true, knobs: tuning.KnobState{Current: cur}}
	d := tuning.Diagnosis{Now: now, Plan: tuning.Plan{Changes: []tuning.Change{{Key: knob.TimeWait, Current: "120", Proposed: "30"}}}}
	p.plan, p.contradictions = d.Plan, d.Contradictions()
	view := ansi.Strip(strings.Join(p.View(styles.DefaultStyles(), 20, 200, func() []diagnose.Frame { return nil }), "\n"))
	if !strings.Contains(view, "tablefull disagrees with itself") || !strings.Contains(view, "rules net.netfilter.nf_conntrack_tcp_timeout_time_wait out") {
		t.Errorf("the contradiction is not on the panel:\n%s", view)
	}
}
