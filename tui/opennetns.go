package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
)

// OpenNamespace opens the console of one of the host's other namespaces
// (as --netns does) and returns it with what stops its feed.
type OpenNamespace func(ns model.NetNS) (*App, func(), error)

// openedMsg carries a namespace's console opened from the panel, for the
// root to show as a tab; from is the tab it was opened from.
type openedMsg struct {
	from int
	app  *App
	stop func()
	err  error
}

// openNamespaceCmd opens the selected namespace's console: it starts a
// process, so it runs as a command, never in Update.
func (a *App) openNamespaceCmd() tea.Cmd {
	ns := a.frame().Sample.Namespaces
	open := a.opts.OpenNamespace
	if ns == nil || open == nil || a.nsSel >= len(ns.Rows) {
		if open == nil {
			a.status.say("namespaces open from the host's own console only")
		}
		return nil
	}
	row, from := ns.Rows[a.nsSel], a.id
	return func() tea.Msg {
		app, stop, err := open(row)
		return openedMsg{from: from, app: app, stop: stop, err: err}
	}
}

// moveNamespace moves the panel's selection by d rows.
func (a *App) moveNamespace(d int) {
	n := 0
	if ns := a.frame().Sample.Namespaces; ns != nil {
		n = len(ns.Rows)
	}
	a.nsSel = max(0, min(n-1, a.nsSel+d))
}

// opened shows a namespace's console as the last tab, replacing one
// opened before (one at a time: esc there comes back).
func (r *Root) opened(msg openedMsg) tea.Cmd {
	if msg.err != nil {
		if msg.from >= 0 && msg.from < len(r.apps) {
			r.apps[msg.from].status.say("open namespace: " + msg.err.Error())
		}
		return nil
	}
	r.closeOpened()
	msg.app.id = len(r.apps)
	r.apps = append(r.apps, msg.app)
	r.openedStop, r.openedFrom = msg.stop, msg.from
	r.active = msg.app.id
	r.resize(r.width, r.height)
	return msg.app.Init()
}

// closeOpened stops and removes the namespace console opened from a
// panel, and goes back to the tab it was opened from.
func (r *Root) closeOpened() {
	if r.openedStop == nil {
		return
	}
	go r.openedStop() // Stop waits for the command to exit: not in Update
	r.apps = r.apps[:len(r.apps)-1]
	r.active, r.openedStop = r.openedFrom, nil
	r.resize(r.width, r.height)
}
