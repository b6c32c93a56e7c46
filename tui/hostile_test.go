package tui

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/remote/stream"
)

// evil is text a hostile remote sends: an OSC 52 clipboard write, a title
// change, cursor moves, a C1 CSI, a bidi override, a newline, and length.
const evil = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\x1b[H\u009b31m\u202eevil\nmore" + "………………………………………………………………………………"

// hostileStream is an incident whose every string field is evil, encoded
// as a remote would send it.
func hostileStream(t testing.TB) []byte {
	var buf bytes.Buffer
	enc, err := stream.NewEncoder(&buf, model.Host{Name: evil + strings.Repeat("h", 300), Kernel: evil, CPUs: 1, Source: evil}, scriptStart)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range incident(21) {
		s.Disks = append(s.Disks, model.DiskIO{Name: evil, Reads: uint64(i)})
		s.Notes = []string{evil}
		s.CTStats.Note = evil
		s.Kernel.Note = evil
		s.Kernel.Lines = []model.KernelLine{{Time: s.Time, Text: evil, NetNS: 4026532177, NetNSName: evil}}
		s.Conntrack.Holds = model.ClassCounts{120, 120, 432000, 30, 120, 30, 600}
		s.Entries = model.Entries{Source: model.EntriesEvents, Epoch: 1, Note: evil,
			TopDests: []tally.Count{{Key: "tcp/" + evil, N: 9}}, TopSources: []tally.Count{{Key: evil, N: 9}}}
		s.Entries.New[model.ProtoTCP] = 50 * uint64(i)
		if i == 20 {
			s.Census = &model.Census{Total: 3, ByProto: map[string]int{evil: 3}, TopPorts: []tally.Count{{Key: evil, N: 3}}, Error: ""}
		}
		enc.Sample(s)
	}
	return buf.Bytes()
}

// renderStream decodes a stream, analyses it in a console of w×h, and
// returns the screens a user sees: the host's and the tabs over it.
func renderStream(t testing.TB, stream []byte, w, h int) []string {
	rec, err := recording.ReadRecording(bytes.NewReader(stream))
	if err != nil {
		return nil
	}
	a := New(recording.NewReplay(rec, "replay "+evil), Options{Interval: 1e9})
	root := NewRoot(a, New(recording.NewReplay(rec, "second"), Options{Interval: 1e9}))
	root.Update(tea.WindowSizeMsg{Width: w, Height: h})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range rec.Samples {
		a.Update(sampleMsg{s: s})
	}
	a.Update(feedErrMsg{err: errors.New("ssh exited: " + evil)})
	screens := []string{a.View(), root.View()}
	a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}}) // the census panel
	return append(screens, a.View())
}

// checkScreen fails when a screen holds anything a terminal would act on
// (the test renders without colour, so no escape at all is ours) or a
// line wider than the terminal.
func checkScreen(t testing.TB, screen string, w int) {
	t.Helper()
	for i, line := range strings.Split(screen, "\n") {
		for _, r := range line {
			if r == 0x1b || unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("line %d holds %U: %q", i, r, line)
			}
		}
		if lw := lipgloss.Width(line); lw > w {
			t.Fatalf("line %d is %d wide on a %d-wide terminal: %q", i, lw, w, line)
		}
	}
}

// TestHostileStreamRendersInert: a stream full of escape sequences is
// decoded, analysed and shown with every foreign string escaped and no
// line wider than the terminal.
func TestHostileStreamRendersInert(t *testing.T) {
	stream := hostileStream(t)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		screens := renderStream(t, stream, size[0], size[1])
		if len(screens) == 0 {
			t.Fatal("the hostile stream did not decode")
		}
		for _, s := range screens {
			checkScreen(t, s, size[0])
		}
		if !strings.Contains(screens[0], `\x1b]`) {
			t.Errorf("%dx%d: the escaped sequence is not shown for what it is:\n%s", size[0], size[1], screens[0])
		}
	}
}

// FuzzDecodeRender: any stream line, decoded, analysed and rendered,
// gives a screen with no foreign escape and no line too wide.
func FuzzDecodeRender(f *testing.F) {
	stream := hostileStream(f)
	lines := bytes.SplitAfter(stream, []byte("\n"))
	f.Add(lines[len(lines)-2])
	f.Add(lines[3])
	f.Fuzz(func(t *testing.T, line []byte) {
		in := append(append(append([]byte(nil), lines[0]...), lines[1]...), line...)
		for _, s := range renderStream(t, in, 80, 24) {
			checkScreen(t, s, 80)
		}
	})
}

// TestFirstFrameSaysRatesComeNext: before a second sample there is
// nothing to rate CPU and disks against; the screen says so instead of
// "no disks" or an idle 0 %.
func TestFirstFrameSaysRatesComeNext(t *testing.T) {
	view := feedAll(t, incident(1), 200, 50).View()
	if !strings.Contains(view, "rates from the next sample on") || strings.Contains(view, "no disks") {
		t.Errorf("the first frame:\n%s", view)
	}
	if view := feedAll(t, incident(2), 200, 50).View(); strings.Contains(view, "rates from the next sample on") || !strings.Contains(view, "vda") {
		t.Errorf("the second frame still waits for rates:\n%s", view)
	}
}
