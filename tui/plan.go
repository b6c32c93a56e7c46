package tui

import (
	"github.com/tablefull/tablefull/model/diagnose"
)

// layout is the height of each part of the screen for a terminal size.
type layout struct {
	verdict, caption, stats, chart, episodes, ctstats, bottom, footer int
	wide                                                              bool
}

// plan splits the screen. The chart takes what the fixed parts leave, up
// to 12 rows; on a tall terminal the rows beyond go to the episodes, then
// to the bottom panels as far as they have lines to show (bottomRows),
// then to the chart again up to three fifths of the screen, and the rest
// to the bottom panels. A small host then gets a tall chart instead of
// empty rows, a many-CPU host its per-CPU lines.
func (a *App) plan() layout {
	f := a.frame()
	l := layout{wide: a.width >= 150, verdict: 3, stats: 3, episodes: 1, footer: 1}
	if a.width >= 150 {
		l.verdict = 2
	}
	if a.opts.Captions { // rows of its own, so a caption never cuts the verdict's evidence, nor is cut
		l.caption = 1
		if a.width < 120 { // a caption's sentence wraps once at 80 columns
			l.caption = 2
		}
	}
	if a.help.ShowAll {
		for _, col := range (panelKeys{a.keys, a.panel}).FullHelp() {
			l.footer = max(l.footer, len(col))
		}
	}
	if l.wide {
		l.stats = 2
	}
	l.stats += len(driftLines(a.st, f.Sample.Drift, a.width)) // a fix that did not survive says so
	// why the feed is down sits above the keys: both stay on screen
	if a.status.link != "" {
		l.footer += a.status.linkRows(a.width)
	}
	if a.height >= 32 {
		l.episodes = 3
	}
	ncpu := max(1, f.CPUs)
	l.ctstats = min(2+ncpu, 6)
	l.bottom = 5
	if a.height >= 40 {
		l.ctstats = min(3+ncpu, 10)
		l.bottom = 8
	}
	if l.wide {
		l.bottom = max(l.ctstats, l.bottom)
		l.ctstats = 0
	}
	if a.panel == panelTuning { // the panel needs its rows more than the chart does
		l.bottom = max(l.bottom, 14-l.ctstats)
	}
	fixed := 1 + l.verdict + l.caption + l.stats + 1 + l.episodes + l.ctstats + l.bottom + l.footer
	l.chart = max(4, a.height-fixed)
	if cap := min(max(8, a.height/2), 12); l.chart > cap {
		extra := l.chart - cap
		l.chart = cap
		grant := func(n *int, rows int) {
			rows = min(extra, max(0, rows))
			*n += rows
			extra -= rows
		}
		grant(&l.episodes, 3)
		grant(&l.bottom, bottomRows(f, l.wide)-l.bottom)
		grant(&l.chart, a.height*3/5-l.chart)
		grant(&l.bottom, extra)
	}
	if !charted(f) { // no table to chart: its rows go to the panels below
		l.bottom += l.chart
		l.chart = 0
	}
	// Too small (full help open, a short terminal): give up rows in this
	// order, each part down to its minimum, until everything fits.
	for _, p := range []struct {
		n   *int
		min int
	}{{&l.bottom, 3}, {&l.ctstats, 0}, {&l.verdict, 1}, {&l.stats, 1}, {&l.chart, 2}, {&l.bottom, 0}, {&l.episodes, 0}} {
		if over := l.total() - a.height; over > 0 {
			*p.n -= min(over, max(0, *p.n-p.min))
		}
	}
	return l
}

// kernelLogRows is how many kernel log lines the bottom panels make room
// for when the screen has rows to spare.
const kernelLogRows = 6

// bottomRows is how many rows the bottom panels have lines for: the CPU
// and disk panel's (all, each CPU, the disk header and up to three
// disks), the TCP panel with the kernel log under it, and in the wide
// layout the per-CPU conntrack panel beside them (header, CPUs, total).
// Each panel's title takes a row too.
func bottomRows(f diagnose.Frame, wide bool) int {
	ncpu := max(1, f.CPUs)
	system := 1 + 1 + ncpu + 1 + max(1, min(f.Disks, 3))
	tcp := 1 + 3 + 1 + kernelLogRows
	rows := max(system, tcp)
	if wide {
		rows = max(rows, 1+1+ncpu+1)
	}
	return rows
}

// total is the number of rows the layout uses.
func (l layout) total() int {
	return 1 + l.verdict + l.caption + l.stats + l.chart + 1 + l.episodes + l.ctstats + l.bottom + l.footer
}
