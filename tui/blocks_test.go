package tui

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

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
