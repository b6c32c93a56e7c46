package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/tui/keys"
	"github.com/tablefull/tablefull/tui/styles"
)

// FleetSource is what the fleet view reads: the fleet's totals and one
// page of its ranking, and one instance's history as samples.
type FleetSource interface {
	Fleet(ctx context.Context, now time.Time, v fleet.View) (fleet.Page, error)
	History(ctx context.Context, instance string, end time.Time, span, step time.Duration) (model.Host, []model.Sample, error)
	Where() string
}

// FleetOptions configure the fleet view.
type FleetOptions struct {
	// Interval is how often the fleet is queried; Window how far back a
	// drill-down reaches and Step its resolution (0: the scrape
	// interval).
	Interval, Window, Step time.Duration
	// Live opens the live console on an instance's host (its --ssh tab)
	// and returns a stop for its feed; nil when it cannot be offered.
	Live func(instance string) (*App, func(), error)
}

// Fleet is the console over a fleet in Prometheus: a row per instance,
// most severe first; enter drills into an instance's history, s opens its
// live view, esc comes back.
type Fleet struct {
	src  FleetSource
	opts FleetOptions
	st   *styles.Styles
	keys keys.KeyMap
	help help.Model

	// page is the newest answer; view what the next question asks (its
	// narrowing, its page); narrowed the last narrowing the engine took.
	page      fleet.Page
	view      fleet.View
	narrowed  string
	cursor    int
	filter    textinput.Model
	filtering bool
	err       string
	amNote    string
	updated   time.Time
	loading   string
	// asked numbers the questions: an answer or a tick of an older one
	// is dropped, so a page or a narrowing asked for is never overwritten
	// by the refresh before it.
	asked int

	// detail is a drill-down or live console in front of the fleet; stop
	// ends a live one's feed.
	detail *App
	stop   func()

	width, height int
}

// NewFleet builds the fleet view over src.
func NewFleet(src FleetSource, o FleetOptions) *Fleet {
	if o.Interval <= 0 {
		o.Interval = 15 * time.Second
	}
	if o.Window <= 0 {
		o.Window = time.Hour
	}
	in := textinput.New()
	in.Prompt = "/"
	in.CharLimit = 128
	st := styles.DefaultStyles()
	h := help.New()
	h.Styles.ShortKey, h.Styles.ShortDesc = st.HelpKey, st.HelpDesc
	return &Fleet{src: src, opts: o, st: st, keys: keys.DefaultKeyMap(), help: h, filter: in, width: 80, height: 24, loading: "asking Prometheus…"}
}

// fleetMsg carries a page of the fleet or why there is none, and the
// question it answers.
type fleetMsg struct {
	page  fleet.Page
	err   error
	asked int
	view  fleet.View
	// amNote is why Alertmanager was not read with them ("": it was,
	// or none was asked).
	amNote string
}

// alertmanagerNoter is a fleet source that also reads an Alertmanager
// and can say why it could not.
type alertmanagerNoter interface{ AlertmanagerNote() string }

// fleetTickMsg asks for the next refresh of question asked.
type fleetTickMsg struct{ asked int }

// historyMsg carries one instance's history.
type historyMsg struct {
	host    model.Host
	samples []model.Sample
	err     error
}

// fetchCmd asks for the view's page, sized to the screen.
func (f *Fleet) fetchCmd() tea.Cmd {
	f.asked++
	f.view.Limit = f.listRows()
	src, v, asked := f.src, f.view, f.asked
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		page, err := src.Fleet(ctx, time.Now(), v)
		msg := fleetMsg{page: page, err: err, asked: asked, view: v}
		if n, ok := src.(alertmanagerNoter); ok {
			msg.amNote = n.AlertmanagerNote()
		}
		return msg
	}
}

func (f *Fleet) historyCmd(instance string) tea.Cmd {
	src, o := f.src, f.opts
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		h, s, err := src.History(ctx, instance, time.Now(), o.Window, o.Step)
		return historyMsg{h, s, err}
	}
}

// Init implements tea.Model.
// The first question waits for the screen's size (a terminal sends it
// at once), so that its page is the screen's and the engine is not asked
// twice; a tick asks anyway if no size comes.
func (f *Fleet) Init() tea.Cmd {
	asked := f.asked
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return fleetTickMsg{asked: asked} })
}

// Update implements tea.Model. It only routes.
func (f *Fleet) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width, f.height = msg.Width, msg.Height
		f.help.Width = msg.Width
		if f.detail != nil {
			f.detail.Update(msg)
		}
		if f.listRows() != f.view.Limit { // a page the size of the screen
			return f, f.fetchCmd()
		}
		return f, nil
	case fleetMsg:
		if msg.asked != f.asked {
			return f, nil
		}
		return f, f.refreshed(msg)
	case fleetTickMsg:
		if msg.asked != f.asked {
			return f, nil
		}
		return f, f.fetchCmd()
	case historyMsg:
		return f, f.opened(msg)
	case tea.KeyMsg:
		return f, f.key(msg)
	}
	if f.detail != nil {
		_, cmd := f.detail.Update(msg)
		return f, cmd
	}
	return f, nil
}

// refreshed takes a fleet answer and schedules the next question. A
// narrowing the engine refused is undone (the last one it took stays),
// with its reason on screen.
func (f *Fleet) refreshed(msg fleetMsg) tea.Cmd {
	asked := f.asked
	next := tea.Tick(f.opts.Interval, func(time.Time) tea.Msg { return fleetTickMsg{asked: asked} })
	f.loading = ""
	if msg.err != nil {
		f.err = msg.err.Error() // the last rows stay on screen, marked by the error
		if msg.view.Narrow != f.narrowed {
			f.err = "/" + msg.view.Narrow + ": " + f.err
			f.view.Narrow = f.narrowed
			f.filter.SetValue(f.narrowed)
		}
		return next
	}
	f.err, f.page, f.updated, f.amNote, f.narrowed = "", msg.page, time.Now(), msg.amNote, msg.view.Narrow
	if len(f.page.Rows) == 0 && f.page.Offset > 0 { // paged past the end: back to the last page
		f.view.Offset = max(0, f.page.Totals.Hosts-f.listRows())
		return f.fetchCmd()
	}
	f.move(0)
	return next
}

// opened shows a drill-down built from an instance's history: the same
// App, analyzer and panels as a replay, paused at the newest frame.
func (f *Fleet) opened(msg historyMsg) tea.Cmd {
	f.loading = ""
	if msg.err != nil {
		f.err = "history: " + msg.err.Error()
		return nil
	}
	if len(msg.samples) == 0 {
		f.err = "history: Prometheus holds no samples of " + msg.host.Name + " in the window"
		return nil
	}
	a := New(staticFeed{msg.host}, Options{Interval: msg.samples[0].Interval, Speed: 1, Stored: true, History: len(msg.samples) + 1})
	a.Update(tea.WindowSizeMsg{Width: f.width, Height: f.height})
	for _, s := range msg.samples {
		a.Update(sampleMsg{s: s})
	}
	a.player.ended, a.cur.paused = true, true
	a.moveTo(a.cur.newest())
	a.status.say("history from Prometheus at " + msg.samples[0].Interval.String() + ": ←/→ move, esc back to the fleet")
	f.detail, f.stop = a, nil
	return nil
}

// staticFeed is the host of a drill-down: its samples are all given at
// once, so it has none to wait for.
type staticFeed struct{ host model.Host }

// Host implements Feed.
func (s staticFeed) Host() model.Host { return s.host }

// Next implements Feed: the drill-down's samples were all given, so the
// feed has ended.
func (staticFeed) Next() (model.Sample, error) { return model.Sample{}, model.ErrFeedStopped }

func (f *Fleet) key(msg tea.KeyMsg) tea.Cmd {
	if f.detail != nil {
		if key.Matches(msg, f.keys.Leave) && f.detail.panel != panelTuning {
			f.leave()
			return nil
		}
		_, cmd := f.detail.Update(msg)
		return cmd
	}
	if f.filtering {
		return f.filterKey(msg)
	}
	switch {
	case key.Matches(msg, f.keys.Quit):
		return tea.Quit
	case key.Matches(msg, f.keys.RowUp):
		f.move(-1)
	case key.Matches(msg, f.keys.RowDown):
		f.move(1)
	case key.Matches(msg, f.keys.PageUp):
		return f.turn(-1)
	case key.Matches(msg, f.keys.PageDown):
		return f.turn(1)
	case key.Matches(msg, f.keys.Filter):
		f.filtering = true
		return f.filter.Focus()
	case key.Matches(msg, f.keys.Leave):
		return f.narrow("")
	case key.Matches(msg, f.keys.Open):
		if r, ok := f.selected(); ok {
			f.loading = "reading the history of " + foreign(r.Instance) + "…"
			return f.historyCmd(r.Instance)
		}
	case key.Matches(msg, f.keys.Live):
		return f.openLive()
	}
	return nil
}

// filterKey edits the narrowing; enter asks the engine for it, esc
// drops it.
func (f *Fleet) filterKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEnter:
		f.filtering = false
		f.filter.Blur()
		return f.narrow(f.filter.Value())
	case tea.KeyEsc:
		f.filtering = false
		f.filter.Blur()
		return f.narrow("")
	}
	var cmd tea.Cmd
	f.filter, cmd = f.filter.Update(msg)
	return cmd
}

// openLive opens the selected host's live console over ssh.
func (f *Fleet) openLive() tea.Cmd {
	r, ok := f.selected()
	if !ok || f.opts.Live == nil {
		return nil
	}
	a, stop, err := f.opts.Live(r.Instance)
	if err != nil {
		f.err = "live: " + err.Error()
		return nil
	}
	a.Update(tea.WindowSizeMsg{Width: f.width, Height: f.height})
	f.detail, f.stop = a, stop
	return a.Init()
}

// leave goes back to the fleet, ending a live feed.
func (f *Fleet) leave() {
	if f.stop != nil {
		go f.stop() // Stop waits for the ssh to exit: not in Update
	}
	f.detail, f.stop = nil, nil
}

func (f *Fleet) selected() (fleet.Row, bool) {
	if f.cursor < 0 || f.cursor >= len(f.page.Rows) {
		return fleet.Row{}, false
	}
	return f.page.Rows[f.cursor], true
}

// move moves the cursor by d rows within the page on screen.
func (f *Fleet) move(d int) {
	f.cursor = max(0, min(len(f.page.Rows)-1, f.listRows()-1, f.cursor+d))
}
