package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/tui/styles"
)

// mode is what the view is showing: the newest sample, a frozen one, or
// one from history.
type mode struct {
	paused    bool
	playback  bool
	behind    time.Duration // how far the viewed frame is behind the newest
	newCount  int           // frames collected since the view froze
	stale     time.Duration // time since the last sample, when too long
	recording string        // the file being recorded to
}

// renderHeader draws the first line: host facts, source, interval, the
// clock of the viewed sample, and the mode.
func renderHeader(st *styles.Styles, h model.Host, f model.Frame, interval time.Duration, m mode, width int) string {
	var state string
	switch {
	case m.playback && m.paused:
		state = st.Paused.Render("REPLAY PAUSED")
	case m.playback:
		state = st.History.Render("REPLAY")
	case m.stale > 0:
		state = st.Crit.Render("STALE " + model.Dur(m.stale))
	case m.paused:
		state = st.Paused.Render(fmt.Sprintf("PAUSED +%d", m.newCount))
	case m.behind > 0:
		state = st.History.Render("HISTORY −" + model.Dur(m.behind))
	default:
		state = st.Live.Render("LIVE")
	}
	clock := "--:--:--"
	if !f.Sample.Time.IsZero() {
		clock = f.Sample.Time.Local().Format("15:04:05")
	}
	sep := st.Dim.Render(styles.GlyphSep)
	facts := []string{orDash(foreign(h.Kernel)), fmt.Sprintf("%d CPU", h.CPUs), model.Bytes(h.MemTotal), orDash(foreign(h.Source)), interval.String()}
	if width < 100 { // the kernel version is the first thing to give up
		facts = facts[1:]
	}
	if m.recording != "" {
		state += " " + st.Crit.Render("● REC")
	}
	line := st.Title.Render("tablefull") + " " + st.Value.Render(orDash(foreign(h.Name))) + sep +
		strings.Join(facts, sep) + sep + clock + " " + state
	return fit(line, width)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
