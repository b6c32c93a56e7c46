package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/keys"
	"github.com/tablefull/tablefull/tui/styles"
)

// hostMsg is a message meant for one host's console.
type hostMsg interface{ hostID() int }

func (m sampleMsg) hostID() int  { return m.id }
func (m feedErrMsg) hostID() int { return m.id }
func (m tickMsg) hostID() int    { return m.id }
func (m playMsg) hostID() int    { return m.id }
func (m recordMsg) hostID() int  { return m.id }

// Root holds one console per host: a tab each, and an overview line per
// host above them when there are several. It only routes.
type Root struct {
	apps   []*App
	active int
	keys   keys.KeyMap
	st     *styles.Styles
	width  int
	height int
	// openedStop stops the namespace console opened from a panel (the
	// last tab), nil when none is; openedFrom is the tab it came from.
	openedStop func()
	openedFrom int
}

// NewRoot shows apps as tabs, the first one active.
func NewRoot(apps ...*App) *Root {
	for i, a := range apps {
		a.id = i
	}
	return &Root{apps: apps, keys: keys.DefaultKeyMap(), st: styles.DefaultStyles()}
}

// Init implements tea.Model.
func (r *Root) Init() tea.Cmd {
	cmds := make([]tea.Cmd, len(r.apps))
	for i, a := range r.apps {
		cmds[i] = a.Init()
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model.
func (r *Root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		r.resize(msg.Width, msg.Height)
	case openedMsg:
		return r, r.opened(msg)
	case hostMsg:
		return r, r.route(msg.hostID(), msg)
	case tea.KeyMsg:
		return r, r.key(msg)
	}
	return r, nil
}

func (r *Root) resize(w, h int) {
	r.width, r.height = w, h
	for _, a := range r.apps {
		a.resize(w, h-r.overviewLines())
	}
}

func (r *Root) route(id int, msg tea.Msg) tea.Cmd {
	if id < 0 || id >= len(r.apps) {
		return nil
	}
	_, cmd := r.apps[id].Update(msg)
	return cmd
}

func (r *Root) key(msg tea.KeyMsg) tea.Cmd {
	n := len(r.apps)
	switch {
	case r.openedStop != nil && r.active == n-1 && key.Matches(msg, r.keys.Close) && !r.apps[n-1].panelOpen():
		r.closeOpened() // esc in a namespace opened from the panel: back
	case n == 1 && (key.Matches(msg, r.keys.NextTab) || key.Matches(msg, r.keys.PrevTab) || key.Matches(msg, r.keys.Tab)):
		r.apps[0].status.say("one host on screen: tab and 1–9 switch between hosts, a tab each (--ssh web-3 --ssh db-1, or the namespaces panel's enter)")
	case key.Matches(msg, r.keys.NextTab):
		r.active = (r.active + 1) % n
	case key.Matches(msg, r.keys.PrevTab):
		r.active = (r.active + n - 1) % n
	case n > 1 && key.Matches(msg, r.keys.Tab):
		if i, _ := strconv.Atoi(msg.String()); i >= 1 && i <= n {
			r.active = i - 1
		} else {
			r.apps[r.active].status.say(fmt.Sprintf("no host %d: %d on screen (tab cycles them)", i, n))
		}
	default:
		return r.route(r.active, msg)
	}
	return nil
}

func (r *Root) overviewLines() int {
	if len(r.apps) < 2 {
		return 0
	}
	return len(r.apps)
}

// View implements tea.Model.
func (r *Root) View() string {
	if len(r.apps) == 1 {
		return r.apps[0].View()
	}
	lines := make([]string, 0, len(r.apps)+1)
	for i, a := range r.apps {
		lines = append(lines, r.overview(i, a))
	}
	return strings.Join(append(lines, r.apps[r.active].View()), "\n")
}

// overview is one host's line: verdict, count/max, drops/s, staleness.
func (r *Root) overview(i int, a *App) string {
	f, _ := a.frameAt(a.cur.newest())
	name := fmt.Sprintf(" %d %s ", i+1, truncate(orDash(foreign(a.label())), 24))
	tab := r.st.Tab.Render(name)
	if i == r.active {
		tab = r.st.ActiveTab.Render(name)
	}
	if a.cur.seq == 0 && !a.player.on() { // nothing known yet: no numbers
		state := r.st.Dim.Render("CONNECTING")
		if a.status.link != "" {
			state = r.st.Crit.Render("DISCONNECTED") + "  " + r.st.Dim.Render(foreign(a.status.link))
		}
		return fit(tab+" "+state, r.width)
	}
	v := f.Verdict()
	c := f.Sample.Conntrack
	drops := float64(f.Rates.Drops()) / max(f.Rates.Elapsed.Seconds(), 1e-9)
	line := tab + " " + severityStyle(r.st, v.Severity).Render(fmt.Sprintf("%-16s", v.Kind))
	here := ""
	if v.Table != "" { // the verdict is another table's: it is named, and the numbers after it said to be this table's
		line += " in " + foreign(truncate(v.Table, 32)) + " ·"
		here = " here"
	}
	line += fmt.Sprintf("%s %s/%s  drops/s %s", here, units.Int(c.Count), units.Int(c.Max), units.Num(drops))
	if m := a.mode(); m.stale > 0 {
		line += "  " + r.st.Crit.Render("STALE "+units.Dur(m.stale))
	}
	if a.status.text() != "" {
		line += "  " + r.st.Dim.Render(foreign(a.status.text()))
	}
	return fit(line, r.width)
}
