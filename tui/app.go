// Package tui is the console: it renders model frames, one file per panel,
// with a root model that only routes messages.
package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/keys"
	"github.com/tablefull/tablefull/tui/styles"
)

// Intervals are the steps + and - move through.
var Intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second,
	2 * time.Second, 5 * time.Second, 10 * time.Second}

// App is the root model of the console.
type App struct {
	feed     Feed
	host     model.Host
	keys     keys.KeyMap
	st       *styles.Styles
	help     help.Model
	an       *model.Analyzer
	interval time.Duration

	// seq counts frames ever added; view is the absolute index of the
	// frame on screen, or -1 to follow the newest.
	seq    int
	view   int
	paused bool

	width, height int
	chart         pressureChart
	status        string
}

// New builds the console over feed, sampling every interval.
func New(feed Feed, interval time.Duration) *App {
	h := help.New()
	st := styles.DefaultStyles()
	h.Styles.ShortKey, h.Styles.FullKey = st.HelpKey, st.HelpKey
	h.Styles.ShortDesc, h.Styles.FullDesc = st.HelpDesc, st.HelpDesc
	return &App{feed: feed, host: feed.Host(), keys: keys.DefaultKeyMap(), st: st, help: h,
		an: model.NewAnalyzer(model.HistoryFor(time.Hour, interval)), interval: interval, view: -1,
		width: 80, height: 24}
}

// Init implements tea.Model: start waiting for samples.
func (a *App) Init() tea.Cmd { return waitForSampleCmd(a.feed) }

// Update implements tea.Model. It only routes.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.resize(msg.Width, msg.Height)
	case sampleMsg:
		a.addSample(model.Sample(msg))
		return a, waitForSampleCmd(a.feed)
	case feedErrMsg:
		a.status = "feed: " + msg.err.Error()
	case tea.KeyMsg:
		return a, a.handleKey(msg)
	}
	return a, nil
}

func (a *App) resize(w, h int) {
	a.width, a.height = w, h
	a.help.Width = w
	a.refreshChart()
}

func (a *App) addSample(s model.Sample) {
	a.an.Add(s)
	a.seq++
	a.refreshChart()
}

func (a *App) handleKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, a.keys.Quit):
		return tea.Quit
	case key.Matches(msg, a.keys.Help):
		a.help.ShowAll = !a.help.ShowAll
		a.refreshChart()
	case key.Matches(msg, a.keys.Pause):
		a.togglePause()
	case key.Matches(msg, a.keys.Faster):
		a.stepInterval(-1)
	case key.Matches(msg, a.keys.Slower):
		a.stepInterval(+1)
	case key.Matches(msg, a.keys.Back):
		a.scroll(-1)
	case key.Matches(msg, a.keys.Forward):
		a.scroll(+1)
	case key.Matches(msg, a.keys.Latest):
		a.paused, a.view = false, -1
		a.refreshChart()
	case key.Matches(msg, a.keys.Tune):
		a.status = "tuning is not built yet: see the tuning issue"
	}
	return nil
}

func (a *App) togglePause() {
	if a.paused {
		a.paused, a.view = false, -1
	} else {
		a.paused, a.view = true, a.viewIndex()
	}
	a.refreshChart()
}

func (a *App) stepInterval(dir int) {
	i := 0
	for i < len(Intervals)-1 && Intervals[i] < a.interval {
		i++
	}
	i = min(len(Intervals)-1, max(0, i+dir))
	a.interval = Intervals[i]
	if s, ok := a.feed.(IntervalSetter); ok {
		s.SetInterval(a.interval)
		a.status = "interval " + a.interval.String()
	} else {
		a.status = "this feed has a fixed interval"
	}
}

// scroll moves the view a quarter of the chart back or forward in history;
// moving past the newest frame follows live again (unless paused).
func (a *App) scroll(dir int) {
	step := max(1, chartColumns(a.width)/4)
	idx := a.viewIndex() + dir*step
	oldest := a.seq - a.an.Frames().Len()
	idx = max(oldest, idx)
	if idx >= a.seq-1 {
		idx = a.seq - 1
		if !a.paused {
			idx = -1
		}
	}
	a.view = idx
	a.refreshChart()
}

// viewIndex is the absolute index of the frame on screen.
func (a *App) viewIndex() int {
	if a.view < 0 {
		return a.seq - 1
	}
	return max(a.view, a.seq-a.an.Frames().Len())
}

// frame returns the frame on screen.
func (a *App) frame() model.Frame {
	r := a.an.Frames()
	if r.Len() == 0 {
		return model.Frame{}
	}
	return r.At(a.viewIndex() - (a.seq - r.Len()))
}

// window returns the frames the chart shows: up to n ending at the view.
func (a *App) window(n int) []model.Frame {
	r := a.an.Frames()
	if r.Len() == 0 {
		return nil
	}
	end := a.viewIndex() - (a.seq - r.Len())
	start := max(0, end-n+1)
	out := make([]model.Frame, 0, end-start+1)
	for i := start; i <= end; i++ {
		out = append(out, r.At(i))
	}
	return out
}

func (a *App) mode() mode {
	m := mode{paused: a.paused}
	if a.view >= 0 {
		m.newCount = a.seq - 1 - a.viewIndex()
		if last, ok := a.an.Frames().Last(); ok {
			m.behind = last.Sample.Time.Sub(a.frame().Sample.Time)
		}
	}
	return m
}

// Frame returns the frame on screen; tests read it.
func (a *App) Frame() model.Frame { return a.frame() }
