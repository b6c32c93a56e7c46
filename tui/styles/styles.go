// Package styles holds every style the console uses, named by role.
package styles

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Glyphs used in rendering.
const (
	GlyphPinned  = "▀" // a pinned interval in the strip under the chart
	GlyphGap     = "┄" // samples missing (the stream was down)
	GlyphApplied = "▲" // a tuning change was applied here
	GlyphRule    = "─"
	GlyphBar     = "█"
	GlyphBarHalf = "▌"
	GlyphSep     = " · "
)

// Styles are the console's styles, by role.
type Styles struct {
	// Title of the application in the header.
	Title Text
	// Header is the header line's text.
	Header Text
	// PanelTitle heads each panel.
	PanelTitle Text
	// Rule is the line after a panel title.
	Rule Text
	// Label names a value; Value is the value; Dim is secondary text.
	Label, Value, Dim Text
	// Severity colours verdicts and values by how bad they are.
	OK, Warn, Crit Text
	// Live, Paused and History mark the header's mode.
	Live, Paused, History Text
	// ChartLine is the count on the chart; ChartCap the cap line;
	// ChartAxes the axes; PinnedColumn the background of pinned columns.
	ChartLine, ChartCap, ChartAxes, ChartLabels, PinnedColumn lipgloss.Style
	// Caption is the demo's commentary line.
	Caption Text
	// Tab is a host in the overview; ActiveTab the one on screen.
	Tab, ActiveTab Text
	// Help is the footer.
	HelpKey, HelpDesc lipgloss.Style
}

// DefaultStyles returns the console's styles for the terminal lipgloss
// detected (colour profile and background), with every colour already
// in that terminal's terms: lipgloss would otherwise convert a hex colour
// to the terminal's palette on every Render, and the nearest-colour search
// was a tenth of the console's CPU.
func DefaultStyles() *Styles {
	r := lipgloss.DefaultRenderer()
	ok := native(r, "#1b7a2f", "#5fd75f")
	warn := native(r, "#9a6700", "#ffd75f")
	crit := native(r, "#c01c28", "#ff5f5f")
	dim := native(r, "#6e6e6e", "#8a8a8a")
	accent := native(r, "#005f87", "#5fafff")
	pinned := native(r, "#ffd7d7", "#5f0000")
	return &Styles{
		Title:        textOf(lipgloss.NewStyle().Bold(true).Foreground(accent)),
		Header:       textOf(lipgloss.NewStyle()),
		PanelTitle:   textOf(lipgloss.NewStyle().Bold(true).Foreground(accent)),
		Rule:         textOf(lipgloss.NewStyle().Foreground(dim)),
		Label:        textOf(lipgloss.NewStyle().Foreground(dim)),
		Value:        textOf(lipgloss.NewStyle().Bold(true)),
		Dim:          textOf(lipgloss.NewStyle().Foreground(dim)),
		OK:           textOf(lipgloss.NewStyle().Foreground(ok)),
		Warn:         textOf(lipgloss.NewStyle().Foreground(warn).Bold(true)),
		Crit:         textOf(lipgloss.NewStyle().Foreground(crit).Bold(true)),
		Live:         textOf(lipgloss.NewStyle().Foreground(ok).Bold(true)),
		Paused:       textOf(lipgloss.NewStyle().Foreground(warn).Bold(true)),
		History:      textOf(lipgloss.NewStyle().Foreground(accent).Bold(true)),
		ChartLine:    lipgloss.NewStyle().Foreground(accent),
		ChartCap:     lipgloss.NewStyle().Foreground(crit),
		ChartAxes:    lipgloss.NewStyle().Foreground(dim),
		ChartLabels:  lipgloss.NewStyle().Foreground(dim),
		PinnedColumn: lipgloss.NewStyle().Background(pinned),
		Caption:      textOf(lipgloss.NewStyle().Bold(true).Foreground(accent)),
		Tab:          textOf(lipgloss.NewStyle().Foreground(dim)),
		ActiveTab:    textOf(lipgloss.NewStyle().Bold(true).Reverse(true)),
		HelpKey:      lipgloss.NewStyle().Foreground(accent),
		HelpDesc:     lipgloss.NewStyle().Foreground(dim),
	}
}

// native picks light or dark for r's background and converts it once to
// r's colour profile: a palette index on 16- and 256-colour terminals
// (which lipgloss then uses as is), the hex on true-colour ones, nothing
// without colour.
func native(r *lipgloss.Renderer, light, dark string) lipgloss.TerminalColor {
	hex := light
	if r.HasDarkBackground() {
		hex = dark
	}
	switch c := r.ColorProfile().Color(hex).(type) {
	case termenv.ANSIColor:
		return lipgloss.ANSIColor(c)
	case termenv.ANSI256Color:
		return lipgloss.ANSIColor(c)
	case termenv.RGBColor:
		return lipgloss.Color(c)
	default:
		return lipgloss.NoColor{}
	}
}
