// Package tui is the console: it renders model frames, one file per panel,
// with root models that only route messages.
package tui

import (
	"errors"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/tui/chart"
	"github.com/tablefull/tablefull/tui/keys"
	"github.com/tablefull/tablefull/tui/styles"
)

// Intervals are the steps + and - move through.
var Intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second,
	2 * time.Second, 5 * time.Second, 10 * time.Second}

// Options configure one host's console.
type Options struct {
	// Interval is the sampling interval asked of the feed.
	Interval time.Duration
	// Speed > 0 plays the feed back (a recording): the view starts at the
	// first frame and moves at Speed × real time.
	Speed float64
	// Captions shows a sentence at the moments that matter (the demo).
	Captions bool
	// Stored says the feed is a store's history (Prometheus's), not a
	// recording: the header says HISTORY, as the manual does.
	Stored bool
	// Recorder, when set, lets r record the feed.
	Recorder Recorder
	// History is the number of frames kept; 0 keeps an hour at Interval.
	History int
	// Tuner, when set, makes t open the tuning panel.
	Tuner tuning.Tuner
	// Entries, when set, makes E list the table's entries;
	// DeleteEntries, when set, lets D there delete what the filter
	// matches; FollowEntries lets f there follow it live.
	Entries       EntriesLister
	DeleteEntries EntriesDeleter
	FollowEntries EntriesFollower
	// Intro is shown in the status line until something replaces it.
	Intro string
	// Live, when set, is shown in the status line once a second after
	// the intro (the lab's client counts).
	Live func() string
	// OpenNamespace, when set, lets enter in the namespaces panel open
	// that namespace's console (the host's own console sets it).
	OpenNamespace OpenNamespace
	// Source names the feed as the user typed it ("netns h1", "ssh
	// web-3", `via "kubectl exec …"`, "lab table-full"): the tab's label
	// and the header's source, where the host's own name may be the same
	// for several feeds.
	Source string
}

// App is one host's console.
type App struct {
	id       int
	feed     model.Feed
	host     model.Host
	keys     keys.KeyMap
	st       *styles.Styles
	help     help.Model
	helpView helpCache
	an       *diagnose.Analyzer
	interval time.Duration
	opts     Options

	// cur is where the view stands in the history; player how the feed
	// is read.
	cur    cursor
	player player

	lastArrival time.Time
	now         time.Time
	recording   string
	panel       bottomPanel
	nsSel       int
	tune        tunePanel
	ents        entriesPanel
	census      *model.Census
	caption     string
	captionAt   int
	captionKind verdict.Kind

	width, height int
	chart         chart.Chart
	kernel        kernelPanel
	status        statusLine
	// rendered is the last View, reused until something on screen
	// changes: bubbletea asks for a View after every message.
	rendered string
}

// New builds the console over feed.
func New(feed model.Feed, o Options) *App {
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.History <= 0 {
		o.History = diagnose.HistoryFor(time.Hour, o.Interval)
	}
	h := help.New()
	st := styles.DefaultStyles()
	h.Styles.ShortKey, h.Styles.FullKey = st.HelpKey, st.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = st.HelpDesc, st.HelpDesc
	a := &App{feed: feed, host: feed.Host(), keys: keys.DefaultKeyMap(), st: st, help: h,
		an: diagnose.NewAnalyzer(o.History), interval: o.Interval, opts: o, cur: newCursor(o.Speed > 0),
		player: player{speed: o.Speed}, width: 80, height: 24, status: statusLine{intro: o.Intro}}
	a.tune = tunePanel{tuner: o.Tuner, recorder: o.Recorder, keys: a.keys}
	return a
}

// shownHost is the host as the header shows it: its source is the feed
// as the user named it, when it was named.
func (a *App) shownHost() model.Host {
	h := a.host
	if a.opts.Source != "" {
		h.Source = a.opts.Source
	}
	return h
}

// label names the host in its tab: the feed as the user named it, else
// the host's name.
func (a *App) label() string {
	if a.opts.Source != "" {
		return a.opts.Source
	}
	return a.host.Name
}

// Init implements tea.Model: start waiting for samples and ticking.
func (a *App) Init() tea.Cmd {
	a.player.waiting = true
	cmds := []tea.Cmd{waitForSampleCmd(a.id, a.feed), tickCmd(a.id, time.Second)}
	if a.player.on() {
		cmds = append(cmds, playCmd(a.id, a.playStep()))
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model. It only routes.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tickMsg); !ok {
		a.rendered = "" // anything but a quiet tick may change the screen
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
	case sampleMsg:
		return a, a.addSample(msg.s)
	case feedErrMsg:
		return a, a.feedError(msg.err)
	case tickMsg:
		if a.tick() {
			a.rendered = ""
		}
		return a, tickCmd(a.id, a.nextTick())
	case playMsg:
		return a, tea.Batch(a.play(), a.resume())
	case recordMsg:
		a.recorded(msg)
	case entriesMsg:
		a.listed(msg)
	case entriesDeletedMsg:
		return a, a.deleted(msg)
	case followStartedMsg:
		return a, a.followStarted(msg)
	case followReadMsg:
		a.followRead(msg)
	case tuneReadMsg, tuneDoneMsg:
		cmd, _ := a.tune.Update(msg, a.tuneContext())
		return a, cmd
	case tea.KeyMsg:
		return a, tea.Batch(a.handleKey(msg), a.resume())
	}
	return a, nil
}

// tick refreshes what depends on the clock: staleness, the live status.
// It reports whether the screen changes.
func (a *App) tick() bool {
	before, status := a.mode(), a.status.text()
	a.now = time.Now()
	if a.opts.Live != nil && a.cur.seq > 5 {
		a.status.live = a.opts.Live()
	}
	return a.mode() != before || a.status.text() != status
}

// nextTick is when the clock next matters: every second while the feed
// is stale (the time since the last sample counts up) or a live status
// is shown; otherwise not before the feed could turn stale. Every timer
// is a wake-up, and a wake-up is most of an idle console's CPU.
func (a *App) nextTick() time.Duration {
	if a.opts.Live != nil || a.lastArrival.IsZero() || a.mode().stale > 0 {
		return time.Second
	}
	return max(time.Second, time.Until(a.lastArrival.Add(a.staleAfter())))
}

// staleAfter is how long without a sample before the feed is stale.
func (a *App) staleAfter() time.Duration { return max(3*a.interval, 5*time.Second) }

func (a *App) resize(w, h int) {
	a.width, a.height, a.rendered = w, h, ""
	a.help.Width = w
}

func (a *App) addSample(s model.Sample) tea.Cmd {
	a.an.Add(s)
	a.cur.add(a.an.Frames().Len())
	a.status.link = ""                          // the stream is up again
	observed := a.tune.Observe(a.tuneContext()) // the proposal follows the demand, the loop the table
	a.host = a.feed.Host()                      // a remote feed learns it from the stream's header
	if s.Census != nil {
		a.census = s.Census
	}
	a.lastArrival = time.Now()
	a.now = a.lastArrival
	return tea.Batch(observed, a.entriesDue(), a.wantMore())
}

func (a *App) feedError(err error) tea.Cmd {
	if model.FeedEnded(err) {
		a.player.waiting = false
		a.player.ended = true
		return nil // the feed ended (a recording played out, or stopped)
	}
	var link interface{ Disconnected() bool }
	if errors.As(err, &link) && link.Disconnected() {
		a.status.link = err.Error() // whole, until a sample comes
	} else {
		a.status.say(err.Error())
	}
	return a.wantMore()
}

func (a *App) recorded(msg recordMsg) {
	switch {
	case msg.err != nil:
		a.status.say(msg.err.Error())
	case msg.on:
		a.recording = msg.path
		a.status.say("recording to " + msg.path)
	default:
		a.recording = ""
		a.status.say("recorded " + msg.path)
	}
}

func (a *App) handleKey(msg tea.KeyMsg) tea.Cmd {
	if cmd, mine := a.tune.Update(msg, a.tuneContext()); mine {
		return cmd
	}
	if a.panel == panelEntries {
		if cmd, mine := a.entriesKey(msg); mine {
			return cmd
		}
	}
	switch {
	case key.Matches(msg, a.keys.Quit):
		return tea.Quit
	case key.Matches(msg, a.keys.Help):
		a.help.ShowAll = !a.help.ShowAll
	case a.help.ShowAll && key.Matches(msg, a.keys.Close): // the overlay lists esc as what closes
		a.help.ShowAll = false
	case key.Matches(msg, a.keys.Pause):
		return a.togglePause()
	case key.Matches(msg, a.keys.Faster):
		return a.stepInterval(-1)
	case key.Matches(msg, a.keys.Slower):
		return a.stepInterval(+1)
	case key.Matches(msg, a.keys.Census):
		return a.toggle(panelCensus)
	case a.panel == panelNamespaces && key.Matches(msg, a.keys.Up):
		a.moveNamespace(-1)
	case a.panel == panelNamespaces && key.Matches(msg, a.keys.Down):
		a.moveNamespace(+1)
	case a.panel == panelNamespaces && key.Matches(msg, a.keys.Open):
		return a.openNamespaceCmd()
	case key.Matches(msg, a.keys.Entries):
		if a.panel == panelEntries {
			return a.show(panelNone)
		}
		return a.openEntries()
	case (a.panel == panelNamespaces || a.panel == panelCensus || a.panel == panelEntries) && key.Matches(msg, a.keys.Close):
		return a.show(panelNone)
	case key.Matches(msg, a.keys.Namespaces):
		return a.toggle(panelNamespaces)
	case key.Matches(msg, a.keys.Back):
		a.moveTo(a.cur.at() - 1)
	case key.Matches(msg, a.keys.Forward):
		a.moveTo(a.cur.at() + 1)
	case key.Matches(msg, a.keys.JumpBack):
		a.scroll(-1)
	case key.Matches(msg, a.keys.JumpAhead):
		a.scroll(+1)
	case key.Matches(msg, a.keys.Step):
		a.cur.paused = true
		a.moveTo(a.cur.at() + 1)
	case key.Matches(msg, a.keys.NextChange):
		a.moveTo(a.nextChange())
	case key.Matches(msg, a.keys.Latest):
		a.cur.live()
	case key.Matches(msg, a.keys.Record):
		return a.toggleRecord()
	case key.Matches(msg, a.keys.Tune):
		cmd, status := a.tune.Open(a.tuneContext())
		if status != "" {
			a.status.say(status)
			return nil
		}
		return tea.Batch(cmd, a.show(panelTuning))
	}
	return nil
}

// panelOpen reports whether a panel or the help overlay holds esc
// (tuning, namespaces, help).
func (a *App) panelOpen() bool {
	return a.panel != panelNone || a.help.ShowAll
}

// tuneContext is what the tuning panel reads of the console.
func (a *App) tuneContext() tuneContext {
	return tuneContext{id: a.id, host: a.host, history: a.an.Frames(), now: a.frame(), open: a.panel == panelTuning,
		close: func() { a.panel = panelNone }}
}
