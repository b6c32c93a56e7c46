package tui

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

func typed(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func playback(t *testing.T, captions bool) *App {
	a := New(newScriptFeed(t, nil), Options{Interval: time.Second, Speed: 1, Captions: captions})
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, s := range incident(21) {
		a.Update(sampleMsg{s: s})
	}
	return a
}

func TestPlayback(t *testing.T) {
	a := playback(t, false)
	if got := a.frame().Sample.Time; !got.Equal(scriptStart) {
		t.Fatalf("playback starts at %v, want the first frame %v", got, scriptStart)
	}
	a.Update(playMsg{})
	a.Update(playMsg{})
	if got := a.frame().Sample.Time; !got.Equal(scriptStart.Add(2 * time.Second)) {
		t.Errorf("after two play steps at %v", got)
	}
	if !strings.Contains(a.View(), "REPLAY") {
		t.Errorf("header does not say REPLAY")
	}
	a.Update(typed("n")) // next verdict change: the table fills (NEAR CAP at 3,936)
	f := a.frame()
	if f.Verdict().Kind == verdict.OK {
		t.Errorf("n stopped on %v, want the first change away from OK", f.Verdict().Kind)
	}
	a.Update(typed("n"))
	if !a.frame().Pinned || a.frame().Verdict().Kind != verdict.TableFull {
		t.Errorf("second n stopped on %v pinned=%v, want the pinned TABLE FULL", a.frame().Verdict().Kind, a.frame().Pinned)
	}
	at := a.frame().Sample.Time
	a.Update(typed("p"))
	a.Update(playMsg{})
	if !a.frame().Sample.Time.Equal(at) {
		t.Errorf("paused playback moved")
	}
	a.Update(typed("."))
	if !a.frame().Sample.Time.Equal(at.Add(time.Second)) {
		t.Errorf(". did not step one frame")
	}
	// Episodes in the future of the view are not shown yet.
	b := playback(t, false)
	if strings.Contains(b.View(), "episode  ") {
		t.Errorf("the first frame already lists a pinned episode:\n%s", b.View())
	}
}

func TestDemoCaptions(t *testing.T) {
	a := playback(t, true)
	seen := map[string]bool{}
	for range 20 {
		a.Update(playMsg{})
		flat := strings.Join(strings.Fields(a.View()), " ")
		for _, c := range []string{"climbing", "Pinned at nf_conntrack_max", "packets dropped"} {
			if strings.Contains(flat, c) {
				seen[c] = true
			}
		}
	}
	for _, c := range []string{"climbing", "Pinned at nf_conntrack_max"} {
		if !seen[c] {
			t.Errorf("caption %q never shown", c)
		}
	}
}

type fakeRecorder struct {
	on      bool
	tuned   []string
	deleted []string
}

func (f *fakeRecorder) Deleted(_ time.Time, filter entry.Filter, d entry.Deletion, failed error) error {
	f.deleted = append(f.deleted, fmt.Sprintf("%s: %d of %d (%v)", filter, d.Deleted, d.Matched, failed))
	return nil
}

func (f *fakeRecorder) Toggle() (string, bool, error) { f.on = !f.on; return "rec.jsonl", f.on, nil }

func (f *fakeRecorder) Tuned(action string, _ time.Time, rs []knob.Result) error {
	for _, r := range rs {
		f.tuned = append(f.tuned, action+" "+r.Key+"="+r.After)
	}
	return nil
}

// TestRootTabKeysSayWhy: tab and 1–9 with one host, or a number past
// the hosts on screen, say why nothing switched.
func TestRootTabKeysSayWhy(t *testing.T) {
	one := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	r := NewRoot(one)
	r.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, k := range []tea.KeyMsg{{Type: tea.KeyTab}, typed("2")} {
		one.status.say("")
		r.Update(k)
		if !strings.Contains(one.status.text(), "one host on screen") {
			t.Errorf("%v with one host: status %q", k, one.status.text())
		}
	}
	two := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	r = NewRoot(one, two)
	r.Update(typed("5"))
	if r.active != 0 || !strings.Contains(one.status.text(), "no host 5: 2 on screen") {
		t.Errorf("5 with two hosts: active %d, status %q", r.active, one.status.text())
	}
}

func TestRootTabsStaleAndRecord(t *testing.T) {
	rec := &fakeRecorder{}
	one := New(newScriptFeed(t, nil), Options{Interval: time.Second, Recorder: rec})
	two := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	r := NewRoot(one, two)
	r.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	samples := incident(15)
	for _, s := range samples {
		r.Update(sampleMsg{id: 1, s: s})
	}
	r.Update(sampleMsg{id: 0, s: samples[0]})
	if one.cur.seq != 1 || two.cur.seq != 15 {
		t.Fatalf("routing: host 1 has %d frames, host 2 %d; want 1 and 15", one.cur.seq, two.cur.seq)
	}
	view := r.View()
	if !strings.Contains(view, "1 garage") || !strings.Contains(view, "TABLE FULL") || !strings.Contains(view, "4,096/4,096") {
		t.Errorf("overview lacks a host line:\n%s", view)
	}
	r.Update(tea.KeyMsg{Type: tea.KeyTab})
	if r.active != 1 {
		t.Errorf("tab did not switch host")
	}
	r.Update(typed("1"))
	if r.active != 0 {
		t.Errorf("1 did not switch to the first host")
	}

	one.lastArrival = time.Now().Add(-42 * time.Second)
	r.Update(tickMsg{id: 0})
	if !strings.Contains(r.View(), "STALE 42 s") {
		t.Errorf("a host silent for 42 s is not marked stale:\n%s", r.View())
	}

	_, cmd := r.Update(typed("r"))
	r.Update(cmd())
	if !rec.on || !strings.Contains(r.View(), "● REC") {
		t.Errorf("r did not start recording")
	}
}

func TestGapMarked(t *testing.T) {
	samples := incident(30)
	for i := 15; i < len(samples); i++ { // the stream was down for 10 s
		samples[i].Time = samples[i].Time.Add(10 * time.Second)
	}
	a := feedAll(t, samples, 80, 24)
	if !strings.Contains(a.View(), "┄") {
		t.Errorf("no gap marked under the chart:\n%s", a.View())
	}
	if strings.Contains(feedAll(t, incident(30), 80, 24).View(), "┄") {
		t.Errorf("a gap marked where there is none")
	}
}

func TestEpisodesInThePastCountOnlyTheirDrops(t *testing.T) {
	a := playback(t, false)
	for range 12 { // frame 12: pinned since frame 10, 3 intervals of 540 drops (and 7 early drops, evictions)
		a.Update(playMsg{})
	}
	flat := strings.Join(strings.Fields(a.View()), " ")
	if !strings.Contains(flat, "1,620 drops") {
		t.Errorf("episode in the past should count 3 × 540 drops so far:\n%s", a.View())
	}
}

type censusFeed struct {
	*scriptFeed
	on bool
}

func (c *censusFeed) SetCensus(on bool) { c.on = on }

func TestCensusPanel(t *testing.T) {
	feed := &censusFeed{scriptFeed: newScriptFeed(t, nil)}
	a := New(feed, Options{Interval: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	samples := incident(5)
	samples[4].Census = &model.Census{Total: 4096, ByProto: map[string]int{"tcp": 4096},
		TCPState: map[string]int{"TIME_WAIT": 3900, "ESTABLISHED": 196}, TopPorts: []tally.Count{{Key: "tcp/3900", N: 4090}},
		TopZones: []tally.Count{{Key: "zone 5", N: 3000}, {Key: "zone 0", N: 1096}}, At: samples[4].Time, Took: 12 * time.Millisecond}
	for _, s := range samples[:4] {
		a.Update(sampleMsg{s: s})
	}
	_, cmd := a.Update(typed("c"))
	cmd()
	if !feed.on || !strings.Contains(a.View(), "walking the table") {
		t.Errorf("c did not ask for a census (on=%v):\n%s", feed.on, a.View())
	}
	samples[4].IPVS = &model.IPVS{Present: true, Size: 4096, Conns: 3, Services: 1}
	a.Update(sampleMsg{s: samples[4]})
	flat := strings.Join(strings.Fields(a.View()), " ")
	for _, want := range []string{"4,096 entries", "TIME_WAIT 3,900", "tcp/3900 4,090", "next in 5 s", "zones zone 5 3,000", "IPVS 3 connections in a table of 4,096 buckets, 1 service"} {
		if !strings.Contains(flat, want) {
			t.Errorf("census panel lacks %q:\n%s", want, a.View())
		}
	}
	unzoned := *samples[4].Census
	unzoned.TopZones = nil
	if lines := strings.Join(censusLines(a.st, &unzoned, 100, 10), "\n"); strings.Contains(lines, "zones") {
		t.Errorf("a census without zones shows a zones line:\n%s", lines)
	}
	unzoned.TopDests = []tally.Count{{Key: "10.96.0.10", N: 4000}, {Key: "10.0.0.9", N: 96}}
	unzoned.DestServices = map[string]string{"10.96.0.10": "kube-system/kube-dns"}
	if lines := ansi.Strip(strings.Join(censusLines(a.st, &unzoned, 200, 10), "\n")); !strings.Contains(lines, "10.96.0.10 kube-system/kube-dns 4,000") || strings.Contains(lines, "10.0.0.9 kube") {
		t.Errorf("a destination kube-proxy names is not named by its Service:\n%s", lines)
	}
	_, cmd = a.Update(typed("c"))
	cmd()
	if feed.on || strings.Contains(a.View(), "census:") {
		t.Errorf("c again did not hide the census and stop the walks")
	}
}

// TestHelpOverlayListsEveryConsoleKey: ? shows the keys the console
// handles at any time, 1–9 and esc among them.
func TestHelpOverlayListsEveryConsoleKey(t *testing.T) {
	a := playback(t, false)
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 35})
	a.Update(typed("?"))
	view := a.View()
	for _, want := range []string{"1–9", "host N", "esc", "shift+tab", "step a frame", "next change"} {
		if !strings.Contains(view, want) {
			t.Errorf("the ? overlay does not list %q:\n%s", want, view)
		}
	}
}

// TestPlayedOutStopsAndGoesBackToTheStart: a recording played out stops
// on its last frame, as a player does; ← then reaches its first frame
// and stays there, and the end's message goes with the end.
func TestPlayedOutStopsAndGoesBackToTheStart(t *testing.T) {
	a := playback(t, false)
	a.Update(feedErrMsg{err: io.EOF})
	for range 40 {
		a.Update(playMsg{})
	}
	last := a.frame().Sample.Time
	if !a.cur.paused || a.status.said != endOfRecording {
		t.Fatalf("played out: paused %v, status %q", a.cur.paused, a.status.said)
	}
	for range 10 {
		a.Update(typed("["))
		a.Update(playMsg{}) // a tick still on its way moves nothing
	}
	if got := a.frame().Sample.Time; !got.Equal(scriptStart) {
		t.Errorf("[ from the end stops at %v, want the first frame %v (last %v)", got, scriptStart, last)
	}
	if strings.Contains(a.View(), "end of recording") {
		t.Errorf("the end's message stays at the first frame:\n%s", a.View())
	}
}

// TestJumpStepsAQuarterOfWhatIsShown: in a short recording on a wide
// pane, [ moves a quarter of the frames the chart shows, not a quarter
// of its columns (on a 45 s recording at 200 columns every step landed
// on the first frame); ] comes back as far.
func TestJumpStepsAQuarterOfWhatIsShown(t *testing.T) {
	a := feedAll(t, incident(45), 200, 50)
	a.Update(typed("p"))
	end := a.cur.at()
	a.Update(typed("["))
	moved := end - a.cur.at()
	if moved < 5 || moved > 15 {
		t.Errorf("[ moved %d of 45 frames, want about a quarter of them", moved)
	}
	a.Update(typed("]"))
	if a.cur.at() != end {
		t.Errorf("] after [ is at %d, want %d", a.cur.at(), end)
	}
}

// TestArrowsStepOneSample: ← and → move one sample, in a replay as live,
// whatever the pane's width.
func TestArrowsStepOneSample(t *testing.T) {
	for _, w := range []int{80, 200} {
		a := feedAll(t, incident(45), w, 50)
		a.Update(typed("p"))
		end := a.cur.at()
		a.Update(tea.KeyMsg{Type: tea.KeyLeft})
		a.Update(tea.KeyMsg{Type: tea.KeyLeft})
		if got := end - a.cur.at(); got != 2 {
			t.Errorf("%d columns: ← ← moved %d samples, want 2", w, got)
		}
		a.Update(tea.KeyMsg{Type: tea.KeyRight})
		if got := end - a.cur.at(); got != 1 {
			t.Errorf("%d columns: → after ← ← is %d samples back, want 1", w, got)
		}
	}
}

// TestRootTabNamesAnotherTable: a host whose verdict is about another
// namespace's table names it on its tab, and says the count beside it is
// this table's: never "TABLE FULL 0/4,096 drops/s 0".
func TestRootTabNamesAnotherTable(t *testing.T) {
	one := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	two := New(newScriptFeed(t, nil), Options{Interval: time.Second})
	r := NewRoot(one, two)
	r.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	for _, s := range podFull(6) {
		r.Update(sampleMsg{id: 0, s: s})
	}
	line := lineOf(ansi.Strip(r.View()), " 1 ")
	if !strings.Contains(line, "TABLE FULL") || !strings.Contains(line, "in pod 3f2a9c1e") || !strings.Contains(line, "here ") {
		t.Errorf("the host's tab: %q", line)
	}
}

// lineOf is the first line of view holding sub.
func lineOf(view, sub string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
