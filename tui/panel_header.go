package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// mode is what the view is showing: the newest sample, a frozen one, or
// one from history.
type mode struct {
	paused    bool
	playback  bool
	stored    bool          // a store's history (Prometheus), not a recording
	behind    time.Duration // how far the viewed frame is behind the newest
	newCount  int           // frames collected since the view froze
	stale     time.Duration // time since the last sample, when too long
	recording string        // the file being recorded to
	// connecting: no sample has come yet; disconnected: the feed's last
	// word is that its stream is down.
	connecting, disconnected bool
}

// HeaderStates are the modes the header names (with a duration or a
// count after some: "HISTORY −12 s", "PAUSED +5"); the manual (docs/console.md) lists
// every one.
var HeaderStates = []string{"LIVE", "PAUSED", "HISTORY", "REPLAY", "REPLAY PAUSED", "STALE", "CONNECTING", "DISCONNECTED"}

// renderHeader draws the first line: host facts, source, interval, the
// clock of the viewed sample, and the mode.
func renderHeader(st *styles.Styles, h model.Host, f diagnose.Frame, interval time.Duration, m mode, width int) string {
	var state string
	switch {
	case m.disconnected:
		state = st.Crit.Render("DISCONNECTED")
	case m.connecting:
		state = st.Dim.Render("CONNECTING")
	case m.stored:
		state = st.History.Render("HISTORY")
	case m.playback && m.paused:
		state = st.Paused.Render("REPLAY PAUSED")
	case m.playback:
		state = st.History.Render("REPLAY")
	case m.stale > 0:
		state = st.Crit.Render("STALE " + units.Dur(m.stale))
	case m.paused:
		state = st.Paused.Render(fmt.Sprintf("PAUSED +%d", m.newCount))
	case m.behind > 0:
		state = st.History.Render("HISTORY −" + units.Dur(m.behind))
	default:
		state = st.Live.Render("LIVE")
	}
	clock := "--:--:--"
	if !f.Sample.Time.IsZero() {
		clock = f.Sample.Time.Local().Format("15:04:05")
	}
	sep := st.Dim.Render(styles.GlyphSep)
	cpus, mem := "- CPU", "- RAM" // not known before the stream's header: never 0
	if h.CPUs > 0 {
		cpus = fmt.Sprintf("%d CPU", h.CPUs)
	}
	if h.MemTotal > 0 {
		mem = units.Bytes(h.MemTotal)
	}
	facts := []string{orDash(foreign(h.Kernel)), cpus, mem, orDash(foreign(h.Source)), interval.String()}
	if width < 100 { // the kernel version is the first thing to give up
		facts = facts[1:]
	}
	if m.recording != "" {
		state += " " + st.Crit.Render("● REC")
	}
	// The clock and the mode are what the line is read for: the host's
	// facts give way to them, cut in the middle of the line.
	tail := sep + clock + " " + state
	head := st.Title.Render("tablefull") + " " + st.Value.Render(orDash(foreign(h.Name))) + sep + strings.Join(facts, sep)
	if room := width - lipgloss.Width(tail); lipgloss.Width(head) > room && room > 10 {
		head = truncate(head, room)
	}
	return fit(head+tail, width)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
