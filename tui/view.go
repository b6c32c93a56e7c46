package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/tui/chart"
	"github.com/tablefull/tablefull/tui/keys"
)

// refreshChart rebuilds the cached chart for the current data and size:
// the one place it is done, when the screen is rendered again (Rebuild
// skips what did not change).
func (a *App) refreshChart() {
	l := a.plan()
	a.chart.Rebuild(a.st, a.window(chart.Columns(a.width)), a.width, l.chart+1, a.tune.appliedAt)
}

// View implements tea.Model. It only assembles cached and cheap parts.
func (a *App) View() string {
	if a.width <= 0 || a.height <= 0 {
		return ""
	}
	if a.rendered == "" {
		a.refreshChart()
		a.rendered = a.render()
	}
	return a.rendered
}

// render builds the whole screen.
func (a *App) render() string {
	if a.cur.seq == 0 && !a.player.on() {
		return a.renderWaiting()
	}
	l := a.plan()
	f := a.frame()
	w := a.width
	var parts []string
	parts = append(parts, renderHeader(a.st, a.shownHost(), f, a.interval, a.mode(), w))
	if l.caption == 0 {
		parts = append(parts, block(renderVerdict(a.st, f, w, l.verdict), w, l.verdict))
	} else { // the demo's commentary: whole, on rows of its own; the verdict has the rest and lets its explanation go first
		rows := l.verdict + l.caption
		var caption []string
		if c := a.captionLine(); c != "" {
			caption = wrap("▶ "+c, w)
			if len(caption) > rows-1 { // the verdict keeps its headline
				caption = caption[:rows-1]
				caption[len(caption)-1] = truncate(caption[len(caption)-1]+" …", w)
			}
			for i := range caption {
				caption[i] = a.st.Caption.Render(caption[i])
			}
		}
		verdict := renderVerdict(a.st, f, w, rows-len(caption))
		parts = append(parts, block(append(verdict, caption...), w, rows))
	}

	stats := pressureLines(a.st, f, w)
	if len(stats) > 0 {
		stats[0] = a.st.PanelTitle.Render(titleOf(f)) + stats[0]
	}
	parts = append(parts, block(stats, w, l.stats))
	if v := a.chart.View(); v != "" && charted(f) {
		parts = append(parts, v)
	} else {
		parts = append(parts, block(nil, w, l.chart+1))
	}
	parts = append(parts, block(episodeLines(a.st, a.episodesUpTo(f), l.episodes, f.FullNS), w, l.episodes))

	switch {
	case a.panel == panelTuning:
		h := l.ctstats + l.bottom
		parts = append(parts, section(a.st, "tuning", w, h, a.tune.View(a.st, h-1, w, func() []diagnose.Frame { return a.window(a.an.Frames().Len()) })))
	case a.panel == panelNamespaces:
		h := l.ctstats + l.bottom
		parts = append(parts, section(a.st, "namespaces: the host's others, most full first", w, h, namespaceLines(a.st, f, a.nsSel, a.opts.OpenNamespace != nil, w, h-1)))
	case a.panel == panelCensus:
		cen := a.census
		if a.player.on() { // a recording: the newest census up to the view
			cen = a.censusUpTo(a.cur.at())
		}
		h := l.ctstats + l.bottom
		lines := whoLines(a.st, f.Who, f.WhoSecs, w)
		if v := f.Sample.IPVS; v != nil && v.Present { // IPVS's own table, where kube-proxy's IPVS mode keeps its Services
			lines = append(lines, a.st.Label.Render("IPVS ")+truncate(v.Text(a.host.Kernel), w-5))
		}
		lines = append(lines, censusLines(a.st, cen, w, h-1)...)
		parts = append(parts, section(a.st, "census: what fills the table, and who", w, h, lines[:min(len(lines), h-1)]))
	case a.panel == panelEntries:
		h := l.ctstats + l.bottom
		parts = append(parts, section(a.st, "entries: the table's, one a row", w, h, entriesLines(a.st, a.ents, w, h-1)))
	case l.wide:
		parts = append(parts, a.bottomWide(f, w, l.bottom))
	default:
		parts = append(parts, block(ctStatsLines(a.st, f, l.ctstats, true), w, l.ctstats))
		parts = append(parts, a.bottomNarrow(f, w, l.bottom))
	}
	body := strings.Split(strings.Join(parts, "\n"), "\n")
	footer := strings.Split(a.footer(w, l.footer), "\n")
	if room := a.height - len(footer); len(body) > room { // last resort for tiny terminals
		body = body[:max(0, room)]
	}
	return strings.Join(append(body, footer...), "\n")
}

// suppressed is the kernel's rate-limited callbacks from the first
// sample up to frame f, and that sample's time.
func (a *App) suppressed(f diagnose.Frame) suppression {
	return suppression{n: f.Suppressed, since: a.an.SuppressedSince}
}

// renderWaiting is the screen before the first sample: the header, what
// is awaited, and no numbers at all — nothing is known of the host yet.
func (a *App) renderWaiting() string {
	l := a.plan()
	w := a.width
	lines := []string{renderHeader(a.st, a.shownHost(), diagnose.Frame{}, a.interval, a.mode(), w), ""}
	what := "waiting for the first sample from " + foreign(a.label()) + "…"
	if a.status.link != "" {
		what = "no sample from " + foreign(a.label()) + " yet: the last attempt failed, for the reason below"
	}
	for _, s := range wrapN(what, w, 2) {
		lines = append(lines, a.st.Dim.Render(s))
	}
	lines = append(lines, a.st.Dim.Render(truncate("nothing is known of this host until its stream starts: no count, no verdict", w)))
	footer := strings.Split(a.footer(w, l.footer), "\n")
	return block(lines, w, a.height-len(footer)) + "\n" + strings.Join(footer, "\n")
}

func (a *App) bottomNarrow(f diagnose.Frame, w, h int) string {
	left := w/2 - 1
	right := w - left - 1
	tcp := tcpLines(a.st, f, right)
	kernRows := max(1, h-1-len(tcp))
	klines := a.kernel.lines(a.st, f, a.kernelLinesUpTo(f), a.suppressed(f), kernRows)
	for i := range klines {
		if i == 0 {
			klines[i] = a.st.PanelTitle.Render("kernel log ") + klines[i]
		}
	}
	rightCol := section(a.st, "TCP", right, h, append(tcp, klines...))
	return columns(section(a.st, "CPU · disk", left, h, systemLines(a.st, f, h-1, left)), rightCol)
}

func (a *App) bottomWide(f diagnose.Frame, w, h int) string {
	ctW := max(ctStatsWidth(f.Sample.CTStats), 40)
	sysW := 56
	restW := w - ctW - sysW - 2
	tcp := tcpLines(a.st, f, restW)
	kern := a.kernel.lines(a.st, f, a.kernelLinesUpTo(f), a.suppressed(f), max(1, h-len(tcp)-2))
	right := strings.Join([]string{
		section(a.st, "TCP", restW, len(tcp)+1, tcp),
		section(a.st, "kernel log", restW, h-len(tcp)-1, kern),
	}, "\n")
	return columns(
		section(a.st, "per-CPU conntrack Δ", ctW, h, ctStatsLines(a.st, f, h-1, false)),
		section(a.st, "CPU · disk", sysW, h, systemLines(a.st, f, h-1, sysW)),
		right)
}

// footer is the help, with the status beside it; a status that does not
// fit takes the help's place (? still shows the help).
func (a *App) footer(w, h int) string {
	helpView := a.helpView.of(a.help, panelKeys{a.keys, a.panel}, a.panel)
	lines := strings.Split(helpView, "\n")
	if a.status.link != "" { // why the feed is down, whole, in the help's place
		var out []string
		for _, l := range wrapN(foreign(a.status.link), w, maxLinkRows) {
			out = append(out, a.st.Crit.Render(l))
		}
		return block(append(out, lines[:max(0, h-len(out))]...), w, h)
	}
	if a.status.text() != "" {
		last := len(lines) - 1
		status := a.st.Warn.Render(truncate(foreign(a.status.text()), w))
		switch {
		case lipgloss.Width(lines[last])+2+lipgloss.Width(status) <= w:
			lines[last] += "  " + status
		case len(lines) < h:
			lines = append(lines, status)
		default:
			lines[last] = status
		}
	}
	return block(lines, w, h)
}

// helpCache keeps the help's rendering: the keymap never changes, so the
// help only changes with its width, whether it is shown in full and the
// panel open, and bubbles' help measures every binding again on each
// View.
type helpCache struct {
	width int
	all   bool
	panel bottomPanel
	view  string
}

// of is h's view of km, rendered again only when width, mode or panel
// changed.
func (c *helpCache) of(h help.Model, km help.KeyMap, panel bottomPanel) string {
	if c.view == "" || c.width != h.Width || c.all != h.ShowAll || c.panel != panel {
		c.width, c.all, c.panel, c.view = h.Width, h.ShowAll, panel, h.View(km)
	}
	return c.view
}

// panelKeys is the help of the keys that work here: with the tuning or
// the namespaces panel open, its keys take the full help's last column
// (the steps in time and the tabs wait until it is closed).
type panelKeys struct {
	keys.KeyMap
	panel bottomPanel
}

// FullHelp implements help.KeyMap.
func (p panelKeys) FullHelp() [][]key.Binding {
	cols := p.KeyMap.FullHelp()
	switch p.panel {
	case panelTuning:
		cols[len(cols)-1] = p.TuningHelp()
	case panelNamespaces:
		cols[len(cols)-1] = p.NamespacesHelp()
	case panelEntries:
		cols[len(cols)-1] = p.EntriesHelp()
	}
	return cols
}

// block pads or cuts lines to exactly h lines of width w.
func block(lines []string, w, h int) string {
	out := make([]string, 0, h)
	for _, l := range lines {
		if len(out) == h {
			break
		}
		out = append(out, fit(l, w))
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return strings.Join(out, "\n")
}

// charted reports whether the frame has a table to chart.
func charted(f diagnose.Frame) bool {
	st := f.Sample.Conntrack.Status
	return st == model.TableTracked || st == model.TableUntracked
}

// episodesUpTo returns the episodes as they stood at frame f. At the
// newest frame these are the analyzer's; in the past (history, playback)
// they are detected again from the frames up to f, so later episodes have
// not begun and the drops of the one under way are those counted so far.
func (a *App) episodesUpTo(diagnose.Frame) []diagnose.Episode {
	return a.an.EpisodesUpTo(a.cur.offset(a.cur.at()))
}

// kernelLinesUpTo returns the kernel lines logged by the time of frame f.
func (a *App) kernelLinesUpTo(f diagnose.Frame) []model.KernelLine {
	all := a.an.KernelLines()
	n := len(all)
	for n > 0 && all[n-1].Time.After(f.Sample.Time) {
		n--
	}
	return all[:n]
}

// censusUpTo is the newest census carried by a frame up to index i.
func (a *App) censusUpTo(i int) *model.Census {
	for ; i >= a.cur.oldest(); i-- {
		if f, ok := a.frameAt(i); ok && f.Sample.Census != nil {
			return f.Sample.Census
		}
	}
	return nil
}
