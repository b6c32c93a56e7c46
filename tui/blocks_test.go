package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/styles"
)

// TestColumnsMatchesLipgloss: joining sections side by side gives what
// lipgloss.JoinHorizontal gives, for blocks of different widths and
// heights, styled text and wide glyphs.
func TestColumnsMatchesLipgloss(t *testing.T) {
	st := trueColourStyles(t)
	a := section(st, "per-CPU conntrack Δ", 30, 5, []string{st.Crit.Render("drop 5"), "cpu0 ·· 12"})
	b := section(st, "CPU · disk", 24, 8, []string{"vda ▁▂▃ 4 IO/s", st.OK.Render("idle 96 %")})
	c := block([]string{"ok"}, 3, 1)
	for _, tc := range []struct {
		name   string
		blocks []string
	}{
		{"one", []string{a}},
		{"shorter first", []string{a, b}},
		{"shorter last", []string{b, a}},
		{"three", []string{b, c, a}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []string
			for i, bl := range tc.blocks {
				if i > 0 {
					parts = append(parts, " ")
				}
				parts = append(parts, bl)
			}
			want := lipgloss.JoinHorizontal(lipgloss.Top, parts...)
			if got := columns(tc.blocks...); got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// trueColourStyles switches lipgloss to true colour until the test ends
// and returns the styles made for it.
func trueColourStyles(t *testing.T) *styles.Styles {
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	return styles.DefaultStyles()
}

// TestKernelSuppressedKeepsItsNoun: the rate limit's count takes a row of
// its own with its noun, never the cut end of another line; with one
// row, the newest line keeps it and the count follows with its noun.
func TestKernelSuppressedKeepsItsNoun(t *testing.T) {
	st := styles.DefaultStyles()
	f := diagnose.Frame{Sample: model.Sample{Kernel: model.KernelLog{Readable: true}}}
	var lines []model.KernelLine
	for i := range 5 {
		lines = append(lines, model.KernelLine{Time: time.Unix(int64(1000+i), 0), Text: "nf_conntrack: table full, dropping packet"})
	}
	sup := suppression{n: 3007170, since: time.Unix(900, 0)}
	out := kernelLines(st, f, lines, sup, 3)
	if len(out) != 3 || !strings.Contains(ansi.Strip(out[2]), "+3,007,170 suppressed since") || !strings.Contains(ansi.Strip(out[0]), "table full") {
		t.Errorf("three rows: %q", out)
	}
	out = kernelLines(st, f, lines, sup, 1)
	if len(out) != 1 || !strings.Contains(ansi.Strip(out[0]), "table full") || !strings.Contains(ansi.Strip(out[0]), "+3,007,170 suppressed") {
		t.Errorf("one row: %q", out)
	}
}

// TestSuppressedAsOfTheFrameShown: a frame stepped back to says only the
// suppressed callbacks that had come by its time, not the feed's total
// (a picture reads the whole recording before it draws its first frame).
func TestSuppressedAsOfTheFrameShown(t *testing.T) {
	a := feedAll(t, incident(12), 200, 50) // the 11th sample brings 212 suppressed
	for _, c := range []struct {
		back int
		want bool
	}{{0, true}, {1, true}, {2, false}, {8, false}} {
		a.cur.moveTo(a.cur.newest()-c.back, false)
		a.rendered = ""
		if got := strings.Contains(ansi.Strip(a.View()), "+212 suppressed"); got != c.want {
			t.Errorf("%d frames back: +212 suppressed shown %v, want %v", c.back, got, c.want)
		}
	}
}
