package styles

import (
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
