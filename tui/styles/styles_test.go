package styles

import (
	"reflect"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestColoursResolvedOnce: each profile gets colours in its own terms, so
// Render never converts (a 256-colour terminal gets palette indexes).
func TestColoursResolvedOnce(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	for _, c := range []struct {
		profile termenv.Profile
		want    lipgloss.TerminalColor
	}{
		{termenv.TrueColor, lipgloss.Color("#ff5f5f")},
		{termenv.ANSI256, lipgloss.ANSIColor(203)},
		{termenv.ANSI, lipgloss.ANSIColor(9)},
		{termenv.Ascii, lipgloss.NoColor{}},
	} {
		lipgloss.SetColorProfile(c.profile)
		if got := DefaultStyles().Crit.GetForeground(); got != c.want {
			t.Errorf("profile %v: crit is %#v, want %#v", c.profile, got, c.want)
		}
	}
	lipgloss.SetColorProfile(termenv.ANSI256)
	lipgloss.SetHasDarkBackground(false)
	if got := DefaultStyles().Crit.GetForeground(); got == lipgloss.TerminalColor(lipgloss.ANSIColor(203)) {
		t.Errorf("light background got the dark colour %v", got)
	}
	lipgloss.SetHasDarkBackground(true)
}

// TestTextRendersAsLipgloss: every text role renders exactly what its
// lipgloss style renders, on every colour profile, for one line, several
// arguments, empty text, text already styled, and text with line breaks
// or tabs (which lipgloss itself handles).
func TestTextRendersAsLipgloss(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	inputs := [][]string{
		{"4,096"}, {"count", "4,096 / 4,096"}, {""}, {"  padded  "}, {"ünï ▀▀ ─"},
		{"already \x1b[1mbold\x1b[0m here"}, {"two\nlines"}, {"a\ttab"}, {"cr\r\n"},
	}
	for _, profile := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.ANSI, termenv.Ascii} {
		lipgloss.SetColorProfile(profile)
		st := reflect.ValueOf(*DefaultStyles())
		roles := 0
		for i := range st.NumField() {
			text, ok := st.Field(i).Interface().(Text)
			if !ok {
				continue
			}
			roles++
			name := st.Type().Field(i).Name
			for _, in := range inputs {
				if got, want := text.Render(in...), text.Style.Render(in...); got != want {
					t.Errorf("profile %v, %s.Render(%q) = %q, lipgloss %q", profile, name, in, got, want)
				}
			}
		}
		if roles < 10 {
			t.Fatalf("only %d text roles found", roles)
		}
	}
}
