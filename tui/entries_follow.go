package tui

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/tablefull/tablefull/model/entry"
)

// EntriesFollower starts following the entries a filter matches as the
// kernel makes and ends them (sources.FollowEntries for this host's
// table). Nil where the feed cannot: f then says so.
type EntriesFollower func(filter entry.Filter) (entry.Following, error)

// followStartedMsg is a follow started, or why it could not.
type followStartedMsg struct {
	id  int
	f   entry.Following
	err error
}

func (m followStartedMsg) hostID() int { return m.id }

// followReadMsg is what a follow saw so far.
type followReadMsg struct {
	id     int
	f      entry.Following
	follow entry.Follow
	failed bool
}

func (m followReadMsg) hostID() int { return m.id }

// startFollowCmd joins the event stream in the background: a socket is
// I/O, never Update's.
func startFollowCmd(id int, start EntriesFollower, filter entry.Filter) tea.Cmd {
	return func() tea.Msg {
		f, err := start(filter)
		return followStartedMsg{id: id, f: f, err: err}
	}
}

// readFollowCmd reads a follow in the background (its losses are read
// from /proc).
func readFollowCmd(id int, f entry.Following) tea.Cmd {
	return func() tea.Msg {
		follow, failed := f.Read()
		return followReadMsg{id: id, f: f, follow: follow, failed: failed}
	}
}

// closeFollowCmd ends a follow in the background: Close waits for its
// reader.
func closeFollowCmd(f entry.Following) tea.Cmd {
	if f == nil {
		return nil
	}
	return func() tea.Msg { f.Close(); return nil }
}

// toggleFollow starts following the panel's filter, or stops.
func (a *App) toggleFollow() tea.Cmd {
	p := &a.ents
	if p.following != nil || p.followStarting {
		return a.stopFollow()
	}
	if a.opts.FollowEntries == nil {
		a.status.say("following entries works on a live table (this host, --netns, --ssh, --via); not over this feed yet")
		return nil
	}
	p.followStarting = true
	return startFollowCmd(a.id, a.opts.FollowEntries, p.filter)
}

// stopFollow ends the follow, if any, and forgets what it saw.
func (a *App) stopFollow() tea.Cmd {
	p := &a.ents
	f := p.following
	p.following, p.follow, p.followStarting, p.followFailed = nil, nil, false, false
	return closeFollowCmd(f)
}

// refollow follows a new filter when the panel follows: a follow's counts
// are of its one filter.
func (a *App) refollow() tea.Cmd {
	if a.ents.following == nil {
		return nil
	}
	return tea.Batch(a.stopFollow(), a.toggleFollow())
}

// followStarted takes a started follow in, unless it was stopped or the
// panel closed while it started: then it ends at once.
func (a *App) followStarted(msg followStartedMsg) tea.Cmd {
	p := &a.ents
	if msg.err != nil {
		p.followStarting = false
		a.status.say("follow: " + msg.err.Error())
		return nil
	}
	if !p.followStarting || a.panel != panelEntries {
		return closeFollowCmd(msg.f)
	}
	p.followStarting, p.following = false, msg.f
	a.status.say("following " + describeFilter(p.filter) + ": new and ended entries as the kernel reports them (f stops)")
	return readFollowCmd(a.id, msg.f)
}

// followRead takes what a follow saw in, if it is still the one shown.
func (a *App) followRead(msg followReadMsg) {
	p := &a.ents
	if p.following != msg.f {
		return
	}
	p.follow, p.followFailed = &msg.follow, msg.failed
}

// followDue reads the follow with each sample while it runs.
func (a *App) followDue() tea.Cmd {
	if a.ents.following == nil || a.panel != panelEntries {
		return nil
	}
	return readFollowCmd(a.id, a.ents.following)
}

// describeFilter is a filter as typed, or "every entry".
func describeFilter(f entry.Filter) string {
	if s := f.String(); s != "" {
		return s
	}
	return "every entry"
}
