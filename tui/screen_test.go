package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
)

// feedAll builds an App at w×h and feeds it samples through Update, as
// the program would.
func feedAll(t *testing.T, samples []model.Sample, w, h int) *App {
	t.Helper()
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range samples {
		a.Update(sampleMsg{s: s})
	}
	return a
}

// TestScreens compares whole screens with goldens (go test ./tui -update).
func TestScreens(t *testing.T) {
	noModule := incident(3)
	for i := range noModule {
		noModule[i].Conntrack = model.Conntrack{Status: model.TableNoModule}
		noModule[i].CTStats = model.CTStats{Note: "nf_conntrack is not loaded"}
		noModule[i].Kernel = model.KernelLog{Note: "needs root to read /dev/kmsg (kernel.dmesg_restrict)"}
	}
	scenarios := map[string][]model.Sample{"incident": incident(21), "no-module": noModule}
	for name, samples := range scenarios {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				view := feedAll(t, samples, size[0], size[1]).View()
				checkSize(t, view, size[0], size[1])
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// checkSize fails when a screen does not fill the terminal exactly.
func checkSize(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("screen has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("line %d is %d wide, want %d: %q", i, lw, w, l)
		}
	}
}

func TestIncidentScreenSaysWhy(t *testing.T) {
	view := feedAll(t, incident(21), 80, 24).View()
	flat := strings.Join(strings.Fields(view), " ") // verdicts wrap
	for _, want := range []string{
		"TABLE FULL — 4,096 of 4,096 entries: ~3,960 tcp-closed, 33/s before the pin × 120 s = 3,960; pinned 11 s, 5,940 drops, server idle (CPU 4 %",
		"4,096 / 4,096 (100 %)",
		"ceiling 34 new/s",
		"20:53:44–now",
		"table full",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("screen lacks %q:\n%s", want, view)
		}
	}
}

func TestKeys(t *testing.T) {
	samples := incident(40)
	a := feedAll(t, samples[:30], 80, 24)
	key := func(k string) {
		var msg tea.KeyMsg
		switch k {
		case "left":
			msg = tea.KeyMsg{Type: tea.KeyLeft}
		case "end":
			msg = tea.KeyMsg{Type: tea.KeyEnd}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		if _, cmd := a.Update(msg); cmd != nil {
			cmd() // what the program would run: e.g. ask the feed for an interval
		}
	}

	key("p")
	frozen := a.frame().Sample.Time
	for _, s := range samples[30:35] {
		a.Update(sampleMsg{s: s})
	}
	if got := a.frame().Sample.Time; !got.Equal(frozen) {
		t.Errorf("paused view moved from %v to %v", frozen, got)
	}
	if !strings.Contains(a.View(), "PAUSED +5") {
		t.Errorf("header does not say PAUSED +5:\n%s", a.View())
	}
	key("p")
	if got := a.frame().Sample.Time; !got.Equal(samples[34].Time) {
		t.Errorf("after resume the view shows %v, want the newest %v (no sample lost)", got, samples[34].Time)
	}

	key("left")
	if got := a.frame().Sample.Time; !got.Before(samples[34].Time) {
		t.Errorf("← did not go back in history: %v", got)
	}
	if !strings.Contains(a.View(), "HISTORY −") {
		t.Errorf("header does not say HISTORY")
	}
	key("end")
	if got := a.frame().Sample.Time; !got.Equal(samples[34].Time) {
		t.Errorf("end did not return to live: %v", got)
	}

	feed := a.feed.(*scriptFeed)
	key("+")
	if feed.interval != 2*time.Second || a.interval != 2*time.Second {
		t.Errorf("+ set interval %v (feed %v), want 2s", a.interval, feed.interval)
	}
	key("-")
	key("-")
	if feed.interval != 500*time.Millisecond {
		t.Errorf("- - set interval %v, want 500ms", feed.interval)
	}

	key("?")
	if !strings.Contains(a.View(), "next change") {
		t.Errorf("? did not show the full help")
	}
	_, cmd := a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if cmd == nil || cmd() != tea.Quit() {
		t.Errorf("q did not quit")
	}
}

func TestHistoryIsBounded(t *testing.T) {
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	if got := a.an.Frames().Cap(); got < 3600 {
		t.Errorf("history keeps %d frames, want at least an hour at 1 s", got)
	}
}

// TestScreenAlwaysFits: no size, with or without the full help, makes the
// screen taller or wider than the terminal.
func TestScreenAlwaysFits(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {60, 16}, {200, 50}, {150, 20}} {
		for _, full := range []bool{false, true} {
			a := feedAll(t, incident(15), size[0], size[1])
			if full {
				a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
			}
			view := a.View()
			if n := strings.Count(view, "\n") + 1; n > size[1] {
				t.Errorf("%dx%d full help %v: %d lines", size[0], size[1], full, n)
			}
			if !strings.HasPrefix(view, "tablefull") {
				t.Errorf("%dx%d full help %v: header not on top", size[0], size[1], full)
			}
			for i, l := range strings.Split(view, "\n") {
				if w := lipgloss.Width(l); w > size[0] {
					t.Errorf("%dx%d full help %v: line %d is %d wide", size[0], size[1], full, i, w)
				}
			}
		}
	}
}

// TestHelpFollowsToggleAndResize: the cached help changes with ? (both
// ways) and with the width.
func TestHelpFollowsToggleAndResize(t *testing.T) {
	a := feedAll(t, incident(5), 200, 50)
	press := func() { a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")}) }
	for i, want := range []bool{false, true, false} {
		if i > 0 {
			press()
		}
		if got := strings.Contains(a.View(), "next change"); got != want {
			t.Errorf("after %d presses of ?: full help shown %v, want %v", i, got, want)
		}
	}
	wide := a.View()
	a.Update(tea.WindowSizeMsg{Width: 70, Height: 50})
	for i, l := range strings.Split(a.View(), "\n") {
		if w := lipgloss.Width(l); w > 70 {
			t.Fatalf("after narrowing, line %d is %d wide", i, w)
		}
	}
	if a.View() == wide {
		t.Error("the screen did not change with the width")
	}
}

// TestTallScreenLayout: on a tall pane a small host's spare rows go to
// the chart (not to empty panel rows), a many-CPU host's to its per-CPU
// lines, and a host without conntrack gets no empty chart.
func TestTallScreenLayout(t *testing.T) {
	manyCPUs := func(n int) []model.Sample {
		samples := incident(5)
		for i := range samples {
			s := &samples[i]
			cpu, row := s.CPU[0], s.CTStats.PerCPU[0]
			s.CPU, s.CTStats.PerCPU = nil, nil
			for c := range n {
				cpu.CPU, row.CPU = c, c
				s.CPU = append(s.CPU, cpu)
				s.CTStats.PerCPU = append(s.CTStats.PerCPU, row)
			}
		}
		return samples
	}
	noModule := incident(5)
	for i := range noModule {
		noModule[i].Conntrack = model.Conntrack{Status: model.TableNoModule}
	}
	small := feedAll(t, incident(5), 200, 50).plan()
	if small.chart <= 12 || small.chart > 30 {
		t.Errorf("1 CPU at 200×50: chart %d rows, want 13…30 (the spare rows)", small.chart)
	}
	if small.bottom != bottomRows(feedAll(t, incident(5), 200, 50).frame(), true) {
		t.Errorf("1 CPU at 200×50: bottom %d rows, want just what it shows", small.bottom)
	}
	many := feedAll(t, manyCPUs(48), 200, 50).plan()
	if many.chart != 12 || many.bottom <= small.bottom {
		t.Errorf("48 CPUs at 200×50: chart %d, bottom %d; want 12 and more than a small host's %d", many.chart, many.bottom, small.bottom)
	}
	if l := feedAll(t, noModule, 200, 50).plan(); l.chart != 0 {
		t.Errorf("no conntrack at 200×50: chart %d rows, want none", l.chart)
	}
	if l := feedAll(t, incident(5), 80, 24).plan(); l.chart < 4 || l.total() != 24 {
		t.Errorf("80×24: chart %d rows, total %d", l.chart, l.total())
	}
	for _, l := range []layout{small, many} {
		if l.total() != 50 {
			t.Errorf("layout %+v uses %d rows of 50", l, l.total())
		}
	}
}

// TestEscClosesHelp: the help overlay lists esc as what closes, and esc
// closes it (as ? does), without closing the console or a panel under it.
func TestEscClosesHelp(t *testing.T) {
	a := feedAll(t, incident(21), 80, 24)
	a.Update(typed("?"))
	if !a.help.ShowAll {
		t.Fatal("? did not open the help")
	}
	if !strings.Contains(ansi.Strip(a.View()), "esc") {
		t.Errorf("the help overlay does not list esc:\n%s", ansi.Strip(a.View()))
	}
	_, cmd := a.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if a.help.ShowAll {
		t.Error("esc did not close the help")
	}
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Error("esc quit the console")
		}
	}
}

// TestHelpSaysWhatKeysDoHere: with the tuning panel open the full help
// lists its keys (apply, persist, undo); with the namespaces panel open,
// ↑/↓ are namespaces there, not knobs; with none, the steps in time.
// esc closes each panel and the help over it.
func TestHelpSaysWhatKeysDoHere(t *testing.T) {
	for _, c := range []struct {
		open      string
		want, not []string
	}{
		{"", []string{"next change", "jump back"}, []string{"apply live"}},
		{"t", []string{"apply live", "persist to /etc", "undo last apply"}, []string{"next change"}},
		{"N", []string{"previous namespace", "its console in a tab"}, []string{"previous knob"}},
	} {
		a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Tuner: &fakeTuner{values: map[string]string{knob.Max: "4096", knob.TimeWait: "120"}}})
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		for _, s := range incident(21) {
			a.Update(sampleMsg{s: s})
		}
		if c.open != "" {
			runAll(a, typed(c.open))
		}
		a.Update(typed("?"))
		view := ansi.Strip(a.View())
		for _, w := range c.want {
			if !strings.Contains(view, w) {
				t.Errorf("panel %q: the help lacks %q:\n%s", c.open, w, view)
			}
		}
		for _, w := range c.not {
			if strings.Contains(view, w) {
				t.Errorf("panel %q: the help says %q, which does not apply here", c.open, w)
			}
		}
	}
	for _, open := range []string{"c", "N"} {
		a := feedAll(t, incident(21), 120, 40)
		a.Update(typed(open))
		if a.panel == panelNone {
			t.Fatalf("%s opened no panel", open)
		}
		a.Update(tea.KeyMsg{Type: tea.KeyEsc})
		if a.panel != panelNone {
			t.Errorf("esc left the panel %s opened open", open)
		}
	}
}

// TestFillSaysWhenTheCensusCounted: classes counted by a census frames
// before the one drawn say when, beside the count now: never "fills
// tcp-closed 294" beside "count 710" as if of one moment.
func TestFillSaysWhenTheCensusCounted(t *testing.T) {
	samples := incident(14)
	cs := &model.Census{At: samples[9].Time, Total: 3936}
	cs.ByClass[model.ClassTCPDone] = 3936
	samples[9].Census = cs
	a := feedAll(t, samples, 200, 50)
	view := strings.Join(strings.Fields(ansi.Strip(a.View())), " ")
	if want := "census " + samples[9].Time.Format("15:04:05") + ", count now 4,096"; !strings.Contains(view, want) {
		t.Errorf("the fill line does not say %q:\n%s", want, a.View())
	}
}

// TestUntrackedSaysWholeSentences: a namespace with no entry yet says so
// in a sentence that fits its row at 80 columns, never one cut and carried
// on ("no entry made in this namespace yet (one is ma…").
func TestUntrackedSaysWholeSentences(t *testing.T) {
	s := incident(3)
	for i := range s {
		s[i].Conntrack = model.Conntrack{Status: model.TableUntracked, Max: 262144, Buckets: 262144, TimeWaitHold: 120}
	}
	view := ansi.Strip(feedAll(t, s, 80, 24).View())
	if l := lineOf(view, "no entry made"); !strings.Contains(l, "no entry made in this namespace yet.") || strings.Contains(l, "…") {
		t.Errorf("the table's line: %q\n%s", l, view)
	}
}
