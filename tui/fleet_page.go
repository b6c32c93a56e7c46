package tui

import tea "github.com/charmbracelet/bubbletea"

// What the fleet view asks of the engine besides a refresh: the fleet
// narrowed (/) and another page of its ranking (pgup, pgdown).

// narrow asks the engine for the fleet narrowed by text, from its worst.
func (f *Fleet) narrow(text string) tea.Cmd {
	f.filter.SetValue(text)
	if text == f.view.Narrow {
		return nil
	}
	f.view.Narrow, f.view.Offset, f.cursor = text, 0, 0
	f.loading = "asking Prometheus…"
	return f.fetchCmd()
}

// turn asks for the page d pages deeper into the ranking (d < 0: toward
// the worst).
func (f *Fleet) turn(d int) tea.Cmd {
	step := f.listRows()
	if d > 0 && len(f.page.Rows) > 0 {
		step = len(f.page.Rows) // a page the engine's query length shortened goes on where it ended
	}
	offset := max(0, f.page.Offset+d*step)
	if offset == f.page.Offset || offset >= f.page.Totals.Hosts {
		return nil
	}
	f.view.Offset, f.cursor = offset, 0
	f.loading = "asking Prometheus…"
	return f.fetchCmd()
}
