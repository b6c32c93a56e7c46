package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// fleetChrome is the lines around the instance rows: title, summary,
// status, column heads, and the help or the filter at the bottom.
const fleetChrome = 5

// listRows is how many instance rows fit on screen.
func (f *Fleet) listRows() int { return max(1, f.height-fleetChrome-len(f.statusLines())+1) }

// staleHint says what a STALE row means during an incident.
const staleHint = "STALE: no answer; a full table may drop the scrape itself — s: live view over ssh"

// View implements tea.Model.
func (f *Fleet) View() string {
	if f.detail != nil {
		return f.detail.View()
	}
	w := f.width
	lines := []string{
		fit(f.st.Title.Render("tablefull fleet")+" "+f.st.Dim.Render("· "+foreign(f.src.Where())+f.narrowedText()), w),
		fit(f.summary(), w),
	}
	lines = append(lines, f.statusLines()...)
	lines = append(lines, fit(f.st.Label.Render(f.head()), w))
	for i := 0; i < len(f.page.Rows) && i < f.listRows(); i++ {
		line := f.rowLine(f.page.Rows[i])
		if i == f.cursor {
			line = f.st.Title.Render("▸") + line[1:]
		}
		lines = append(lines, fit(line, w))
	}
	for len(lines) < f.height-1 {
		lines = append(lines, strings.Repeat(" ", w))
	}
	bottom := f.help.ShortHelpView(f.keys.FleetHelp())
	if f.filtering || f.filter.Value() != "" {
		bottom = f.filter.View()
	}
	return strings.Join(append(lines[:max(0, f.height-1)], fit(bottom, w)), "\n")
}

// narrowedText names the narrowing the rows are of, if any.
func (f *Fleet) narrowedText() string {
	if f.narrowed == "" {
		return ""
	}
	return " · /" + foreign(f.narrowed)
}

// summary is the fleet's totals as the engine counted them: hosts,
// pinned and dropping (and the instances serving no score, whose drops
// it cannot count), the instances of each verdict most severe first,
// and the stale.
func (f *Fleet) summary() string {
	t := f.page.Totals
	if t.Hosts == 0 {
		return f.st.Dim.Render("no instances yet")
	}
	parts := []string{f.st.Label.Render(hostsText(t.Hosts))}
	if t.Pinned > 0 {
		parts = append(parts, f.st.Crit.Render(units.Int(uint64(t.Pinned))+" pinned"))
	}
	if t.Dropping > 0 {
		parts = append(parts, f.st.Crit.Render(units.Int(uint64(t.Dropping))+" dropping"))
	}
	if n := t.Unscored; n > 0 { // whether these drop is not known: not counted above
		parts = append(parts, f.st.Warn.Render(units.Int(uint64(n))+" unscored"))
	}
	for _, k := range t.KindsBySeverity() {
		if k != verdict.OK {
			sev, _ := diagnose.KindSeverity(k)
			parts = append(parts, severityStyle(f.st, sev).Render(units.Int(uint64(t.Kinds[k]))+" "+string(k)))
		}
	}
	if t.Stale > 0 {
		parts = append(parts, f.st.Crit.Render(units.Int(uint64(t.Stale))+" STALE"))
	}
	if n := t.Kinds[verdict.OK]; n > 0 { // last: what the edge may cut
		parts = append(parts, f.st.OK.Render(units.Int(uint64(n))+" "+string(verdict.OK)))
	}
	return strings.Join(parts, f.st.Dim.Render(" · "))
}

// statusLines are the status's rows: an error whole, wrapped as the
// console wraps a link's (the reason is the cause an operator acts on),
// anything else in one.
func (f *Fleet) statusLines() []string {
	if f.err == "" {
		out := []string{fit(f.status(), f.width)}
		if a := f.alertsLine(); a != "" {
			out = append(out, fit(a, f.width))
		}
		return out
	}
	var out []string
	for _, l := range wrapN(foreign(f.err), f.width, maxLinkRows) {
		out = append(out, fit(f.st.Warn.Render(l), f.width))
	}
	return out
}

// status is the work under way, or where the page is and how fresh: its
// place, the refresh's cost, the recordings' age and its update; on a
// narrow screen, which cuts the line's end, the cost comes last. A page
// with a host gone unanswered says what to do first (on this one line
// whatever the page holds: the page's size is the screen's less the
// status, asked before the page is known).
func (f *Fleet) status() string {
	switch {
	case f.loading != "":
		return f.st.Dim.Render(f.loading)
	}
	c := f.page.Cost
	cost := fmt.Sprintf("%d queries, %s in %d ms (%.1f ms ours)", c.Queries, units.Bytes(uint64(max(c.Bytes, 0))), c.Took.Milliseconds(), float64(c.Own.Microseconds())/1000)
	var fresh []string
	if at := f.page.Recorded; !at.IsZero() { // the engine's rules counted and ranked, a little before
		fresh = append(fresh, "totals recorded "+units.Dur(max(f.updated.Sub(at), 0))+" before")
	}
	fresh = append(fresh, "updated "+f.updated.Local().Format("15:04:05")+", every "+f.opts.Interval.String()+"; window "+units.Dur(f.opts.Window))
	parts := append([]string{f.placeText()}, fresh...)
	if f.wide() {
		parts = slices.Insert(parts, 1, cost)
	} else {
		parts = append(parts, cost)
	}
	status := f.st.Dim.Render(strings.Join(parts, " · "))
	if f.staleOnPage() {
		return f.st.Warn.Render(staleHint) + f.st.Dim.Render(" · ") + status
	}
	return status
}

// staleOnPage reports whether a row of the page has gone unanswered.
func (f *Fleet) staleOnPage() bool {
	for _, r := range f.page.Rows {
		if r.Stale {
			return true
		}
	}
	return false
}

// placeText is where the page is in the ranking: "worst 1–20 of 20,000".
func (f *Fleet) placeText() string {
	p := f.page
	if len(p.Rows) == 0 {
		return "no rows"
	}
	return fmt.Sprintf("worst %s–%s of %s", units.Int(uint64(p.Offset+1)), units.Int(uint64(p.Offset+len(p.Rows))), units.Int(uint64(p.Totals.Hosts)))
}

// wide reports whether the optional columns fit.
func (f *Fleet) wide() bool { return f.width >= 120 }

// columns are the widths of the verdict and instance columns.
func (f *Fleet) columns() (verdict, instance int) {
	if f.wide() {
		return 16, 28
	}
	return 15, 20
}

func (f *Fleet) head() string {
	vw, iw := f.columns()
	h := fmt.Sprintf("  %-*s %-*s %15s %4s %8s %7s", vw, "verdict", iw, "instance", "count / limit", "%", "drops/s", "pinned")
	if f.wide() {
		h += fmt.Sprintf(" %9s %8s %9s", "peak", "episodes", "scraped")
	}
	return h
}

// rowLine is one instance: its verdict, table, drops and time pinned.
func (f *Fleet) rowLine(r fleet.Row) string {
	vw, iw := f.columns()
	sev, _ := diagnose.KindSeverity(r.Verdict())
	verdict := severityStyle(f.st, sev).Render(fmt.Sprintf("%-*s", vw, truncate(string(r.Verdict()), vw)))
	if r.Stale {
		verdict = f.st.Crit.Render(fmt.Sprintf("%-*s", vw, "STALE"))
	}
	table, pct := "-", "-"
	if r.HasTable {
		table, pct = units.Int(r.Count)+" / "+units.Int(r.Limit), fmt.Sprintf("%.0f", arith.Percent(r.Count, r.Limit))
	}
	inst := truncate(foreign(r.Instance), iw)
	inst += strings.Repeat(" ", max(0, iw-lipgloss.Width(inst)))
	line := "  " + verdict + " " + inst
	if !f.wide() && r.WorstNS != "" && (r.Limit == 0 || r.Count < r.Limit) { // narrow: the words in place of the host's fine numbers
		return line + " " + f.why(r, f.width-lipgloss.Width(line)-1)
	}
	line += fmt.Sprintf(" %15s %4s %8s %7s", table, pct, units.Num(r.DropsPS+r.NSDropsPS), units.Dur(r.Pinned))
	if f.wide() {
		line += fmt.Sprintf(" %9s %8d %9s", units.Int(r.Peak), r.Episodes, ago(r.LastSeen))
	}
	if why := f.why(r, f.width-lipgloss.Width(line)-2); why != "" {
		line += "  " + why
	}
	return line
}

// why says in words that fit in width why a row is red when the host's
// own numbers do not: its fullest other namespace, its name shortened
// from the middle if it must be ("netns web-7…c1e9 full 500 / 500, 80
// drops/s").
func (f *Fleet) why(r fleet.Row, width int) string {
	if r.WorstNS == "" || width < 12 {
		return ""
	}
	sty, state := f.st.Dim, "fullest other ns"
	tail := " " + units.Int(r.WorstNSCount)
	if r.Limit > 0 && r.WorstNSCount >= r.Limit {
		sty, state = f.st.Crit, "full"
		tail = " " + units.Int(r.WorstNSCount) + " / " + units.Int(r.Limit)
	}
	if r.NSDropsPS > 0 {
		tail += ", " + units.Num(r.NSDropsPS) + " drops/s"
	}
	if state == "fullest other ns" {
		return sty.Render(truncate(state+" "+foreign(r.WorstNS)+tail, width))
	}
	room := width - lipgloss.Width(" "+state+tail)
	if room < 4 {
		return sty.Render(truncate(foreign(r.WorstNS)+" "+state, width))
	}
	return sty.Render(shortenMiddle(foreign(r.WorstNS), room) + " " + state + tail)
}

// ago is how long ago t was, briefly.
func ago(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return units.Dur(time.Since(t).Round(time.Second)) + " ago"
}

// hostsText counts the fleet's hosts: "1 host", "20,000 hosts".
func hostsText(n int) string {
	if n == 1 {
		return "1 host"
	}
	return units.Int(uint64(n)) + " hosts"
}
