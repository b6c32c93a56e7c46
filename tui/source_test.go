package tui

import (
	"fmt"
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestSourceScreens: two --netns tabs of hosts with the same name, the
// lab and a replay each name their source on screen, as the user typed it
// (goldens; go test ./tui -update).
func TestSourceScreens(t *testing.T) {
	screens := map[string]func(w, h int) string{
		"two-netns": func(w, h int) string {
			a := New(newScriptFeed(t, nil), Options{Interval: 1e9, Source: "netns h1"})
			b := New(newScriptFeed(t, nil), Options{Interval: 1e9, Source: "netns h2"})
			r := NewRoot(a, b)
			r.Update(tea.WindowSizeMsg{Width: w, Height: h})
			for i, s := range incident(21) {
				a.Update(sampleMsg{s: s})
				if i < 5 {
					b.Update(sampleMsg{s: s})
				}
			}
			return r.View()
		},
		"lab": func(w, h int) string {
			a := New(newScriptFeed(t, nil), Options{Interval: 1e9, Source: "lab table-full"})
			a.Update(tea.WindowSizeMsg{Width: w, Height: h})
			for _, s := range incident(21) {
				a.Update(sampleMsg{s: s})
			}
			return a.View()
		},
		"replay": func(w, h int) string {
			a := New(newScriptFeed(t, nil), Options{Interval: 1e9, Speed: 1, Source: "replay incident.jsonl"})
			a.Update(tea.WindowSizeMsg{Width: w, Height: h})
			for _, s := range incident(21) {
				a.Update(sampleMsg{s: s})
			}
			return a.View()
		},
	}
	want := map[string][]string{"two-netns": {"netns h1", "netns h2"}, "lab": {"lab table-full"}, "replay": {"replay incident.jsonl"}}
	for name, screen := range screens {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s/%dx%d", name, size[0], size[1]), func(t *testing.T) {
				view := screen(size[0], size[1])
				checkSize(t, view, size[0], size[1])
				for _, w := range want[name] {
					if !strings.Contains(view, w) {
						t.Errorf("the screen does not name %q:\n%s", w, view)
					}
				}
				golden.RequireEqual(t, []byte(view))
			})
		}
	}
}

// TestCapRowReadsTheCap: with nf_conntrack_max 256 the cap's row is
// labelled 256, not the scale's 269 (the chart's top is 5 % above the cap).
func TestCapRowReadsTheCap(t *testing.T) {
	samples := incident(21)
	for i := range samples {
		c := &samples[i].Conntrack
		c.Max, c.Count, c.Peak = 256, min(c.Count, 256), min(c.Peak, 256)
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		view := feedAll(t, samples, size[0], size[1]).View()
		found := false
		for _, line := range strings.Split(view, "\n") {
			if strings.HasPrefix(strings.TrimLeft(line, " "), "256├") {
				found = true
			}
			if strings.HasPrefix(strings.TrimLeft(line, " "), "269") {
				t.Errorf("%dx%d: a row reads 269", size[0], size[1])
			}
		}
		if !found {
			t.Errorf("%dx%d: no row reads the cap 256:\n%s", size[0], size[1], view)
		}
	}
}

// TestCaptionKeepsTheEvidence: at 80×24 a caption has a row of its own;
// the verdict's kind and its evidence (count/max, drops, server idle)
// stay whole.
func TestCaptionKeepsTheEvidence(t *testing.T) {
	a := New(newScriptFeed(t, nil), Options{Interval: 1e9, Speed: 1, Captions: true})
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, s := range incident(21) {
		a.Update(sampleMsg{s: s})
	}
	shown := false
	for i := 0; i < 21; i++ {
		a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'.'}}) // one frame on
		view := a.View()
		if !strings.Contains(view, "▶") {
			continue
		}
		shown = true
		flat := strings.Join(strings.Fields(view), " ")
		if strings.Contains(flat, "TABLE FULL —") && (!strings.Contains(flat, "server idle (CPU 4 %, disk 0 IO/s)") || !strings.Contains(flat, "of 4,096 entries")) {
			t.Errorf("frame %d: a caption cut the verdict's evidence:\n%s", i, view)
		}
		if l := lineOf(ansi.Strip(view), "▶"); strings.Contains(l, "…") {
			t.Errorf("frame %d: the caption is cut: %q", i, l)
		}
		checkSize(t, view, 80, 24)
	}
	if !shown {
		t.Error("no caption was shown")
	}
}

// TestHiddenCPUsSaidWhole: when not every CPU fits, a row of its own says
// how many are not shown, whole, not cut off beside the total.
func TestHiddenCPUsSaidWhole(t *testing.T) {
	samples := incident(10)
	for i := range samples {
		row := samples[i].CTStats.PerCPU[0]
		samples[i].CTStats.PerCPU = nil
		for c := range 48 {
			row.CPU = c
			samples[i].CTStats.PerCPU = append(samples[i].CTStats.PerCPU, row)
		}
	}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		view := feedAll(t, samples, size[0], size[1]).View()
		checkSize(t, view, size[0], size[1])
		if !strings.Contains(view, "quieter CPUs not shown") {
			t.Errorf("%dx%d: the hidden CPUs are not said whole:\n%s", size[0], size[1], view)
		}
	}
}

// TestCaptionsStandOnTheirFrames: a caption is gone once the verdict it
// was said under no longer holds, and the last frame of a recording has
// a caption of its own.
func TestCaptionsStandOnTheirFrames(t *testing.T) {
	samples := incident(14)
	// The fix at the end: the table has room again, no drops.
	for i := 12; i < 14; i++ {
		s := &samples[i]
		s.Conntrack.Max, s.Conntrack.Count, s.Conntrack.Peak = 16384, 900, 900
		s.CTStats = samples[11].CTStats
	}
	a := New(newScriptFeed(t, nil), Options{Interval: 1e9, Speed: 1, Captions: true})
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, s := range samples {
		a.Update(sampleMsg{s: s})
	}
	a.Update(feedErrMsg{err: io.EOF})
	var said []string
	for i := 0; i < len(samples); i++ {
		a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'.'}})
		f := a.frame()
		if c := a.captionLine(); c != "" {
			said = append(said, c)
			if strings.Contains(c, "never hears them") && f.Verdict().Kind != verdict.TableFull {
				t.Errorf("frame %d: %q under %s", i, c, f.Verdict().Kind)
			}
		}
	}
	if last := a.captionLine(); !strings.HasPrefix(last, "End of the recording: the table has room (900 of 16,384)") {
		t.Errorf("the last frame's caption %q (captions: %q)", last, said)
	}
}
