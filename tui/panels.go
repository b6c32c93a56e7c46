package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
)

// bottomPanel is the panel that holds the bottom of the screen in place
// of the per-CPU table: one at a time, or none.
type bottomPanel int

// The bottom panels.
const (
	panelNone bottomPanel = iota
	panelTuning
	panelNamespaces
	panelCensus
	panelEntries
)

// show makes p the bottom panel (panelNone closes it) and returns what the
// change needs done: the feed walks the table only while the census is
// shown (a recording shows the censuses it holds).
func (a *App) show(p bottomPanel) tea.Cmd {
	was := a.panel
	a.panel = p
	var unfollow tea.Cmd
	if was == panelEntries && p != panelEntries {
		unfollow = a.stopFollow()
	}
	if (was == panelCensus) == (p == panelCensus) {
		return unfollow
	}
	s, ok := a.feed.(model.CensusSetter)
	if !ok || a.player.on() {
		return unfollow
	}
	return tea.Batch(unfollow, setCensusCmd(s, p == panelCensus))
}

// toggle shows p, or closes it when it is shown.
func (a *App) toggle(p bottomPanel) tea.Cmd {
	if a.panel == p {
		return a.show(panelNone)
	}
	return a.show(p)
}
