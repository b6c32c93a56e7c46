package tui

import (
	"fmt"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// pressureLines are the numbers above the chart, and a drift of the
// persisted tuning, whatever the table's state.
func pressureLines(st *styles.Styles, f diagnose.Frame, width int) []string {
	return append(tableLines(st, f, width), driftLines(st, f.Sample.Drift, width)...)
}

// tableTitle heads the first of the table's lines; hostTableTitle does
// when another namespace's table is at the cap, so that the numbers and
// the chart below a verdict about that one read as the host's own.
const (
	tableTitle     = "conntrack "
	hostTableTitle = "host table "
)

// titleOf is the title of f's table lines.
func titleOf(f diagnose.Frame) string {
	if len(f.FullNS) > 0 {
		return hostTableTitle
	}
	return tableTitle
}

// tableLines are the table's numbers, or why there are none.
func tableLines(st *styles.Styles, f diagnose.Frame, width int) []string {
	c := f.Sample.Conntrack
	// Each sentence starts a line of its own, so a panel of fewer rows
	// keeps whole sentences, never one cut and carried on.
	note := func(sty styles.Text, sentences ...string) []string {
		var lines []string
		for _, text := range sentences {
			for _, l := range wrap(text, width-len("conntrack ")) {
				lines = append(lines, sty.Render(l))
			}
		}
		return lines
	}
	switch c.Status {
	case model.TableNoModule:
		return note(st.Dim, "nf_conntrack is not loaded: no table, nothing to fill.", "The other panels still work.")
	case model.TableUntracked:
		return note(st.Dim, fmt.Sprintf("count 0 of max %s: no entry made in this namespace yet.", units.Int(c.Max)),
			"One is made once a ct rule or NAT sees a packet; till then no table pressure.")
	case model.TableUnreadable:
		return note(st.Warn, "conntrack files unreadable: "+foreign(strings.Join(f.Sample.Notes, "; ")))
	}
	pct := arith.Percent(c.Count, c.Max)
	countStyle := st.OK
	switch {
	case f.Pinned:
		countStyle = st.Crit
	case pct >= diagnose.NearCapPct:
		countStyle = st.Warn
	}
	ceiling, why := diagnose.CeilingOf(c, f.Fill)
	rate := f.Sustained().Total // over a whole interval, as the demand beside it
	rateStyle := st.Value
	if ceiling > 0 && rate >= ceiling {
		rateStyle = st.Crit
	}
	drops := f.Rates.Drops() // this interval's, per second: the episode's total is the verdict's
	dropsPS := 0.0
	if secs := f.Rates.Elapsed.Seconds(); secs > 0 {
		dropsPS = float64(drops) / secs
	}
	dropStyle := st.Value
	if drops > 0 {
		dropStyle = st.Crit
	}
	hold := fmt.Sprintf("%d s", c.TimeWaitHold)
	if cf, ok := f.Fill.Churn(); ok {
		hold = fmt.Sprintf("%d s %s", cf.Hold, cf.Class)
	}
	l1 := []field{
		{"count", countStyle.Render(fmt.Sprintf("%s / %s (%.0f %%)", units.Int(c.Count), units.Int(c.Max), pct)), 0, false},
		{"peak", st.Value.Render(units.Int(c.Peak)), 2, false},
		{"hold", st.Value.Render(hold), 2, false},
		{"buckets", st.Value.Render(units.Int(c.Buckets)), 4, false},
		{"depth", st.Value.Render(fmt.Sprintf("%.1f", arith.ChainDepth(c.Count, c.Buckets))), 3, false}}
	l2 := []field{
		ceilingField(st, ceiling, why),
		{"", st.Dim.Render("(" + why + ")"), 5, true},
		{"observed", rateStyle.Render(f.Rates.Entries.RateText()), 0, false},
		{"drops/s", dropStyle.Render(units.Num(dropsPS)), 0, false}}
	l3 := fillLine(st, f)
	if f.Demand.AtLeast > 0 { // what is wanted comes before what fits
		l3 = append([]field{{"demand", st.Crit.Render("≥ " + units.Num(f.Demand.AtLeast) + " new/s"), 0, false},
			{"", st.Dim.Render("(" + f.Demand.Basis + ")"), 7, true}}, l3...)
	}
	first := width - len(titleOf(f)) // the view puts the title before the first line
	if width >= 150 {
		return []string{pairsFit(st, first, append(l1, l2...)...), pairsFit(st, width, l3...)}
	}
	return []string{pairsFit(st, first, l1...), pairsFit(st, width, l2...), pairsFit(st, width, l3...)}
}

// ceilingField is the ceiling's value: none for a table standing
// connections fill (diagnose.NoCeiling).
func ceilingField(st *styles.Styles, ceiling float64, why string) field {
	if why == diagnose.NoCeiling {
		return field{"ceiling", st.Value.Render("none"), 1, false}
	}
	return field{"ceiling", st.Value.Render(units.Num(ceiling) + " new/s"), 1, false}
}

// driftLines warn of knobs tablefull persisted that read otherwise live:
// the fix did not survive the reboot, or something wrote it since. At
// most two lines: the first drifted knob, and how many more.
func driftLines(st *styles.Styles, d *knob.Drifts, width int) []string {
	if d == nil || len(d.Drifted) == 0 {
		return nil
	}
	text := foreign(d.Drifted[0].Say())
	if n := len(d.Drifted) - 1; n > 0 {
		text += fmt.Sprintf(" (+%d more knobs)", n)
	}
	lines := wrap(text, width-len("drift "))
	if len(lines) > 2 {
		lines = lines[:2]
		lines[1] = truncate(lines[1]+" …", width-len("drift "))
	}
	for i := range lines {
		label := "      "
		if i == 0 {
			label = "drift "
		}
		lines[i] = st.Label.Render(label) + st.Warn.Render(lines[i])
	}
	return lines
}

// fillLine says what fills the table, class by class (entries ≈ rate ×
// hold, or counted by a census), or why the classes are not known.
func fillLine(st *styles.Styles, f diagnose.Frame) []field {
	if !f.Fill.Known() {
		why := foreign(f.Sample.Entries.Note)
		if why == "" {
			why = "not counted"
		}
		return []field{{"fills", st.Dim.Render("classes unknown: " + why), 0, false}}
	}
	var out []field
	approx := "~"
	if f.Fill.Counted {
		approx = ""
	}
	for i, cf := range f.Fill.Classes {
		if i == 4 {
			break
		}
		label := ""
		if i == 0 {
			label = "fills"
		}
		out = append(out, field{label, st.Value.Render(fmt.Sprintf("%s %s%s", cf.Class, approx, units.Int(cf.Entries))), min(i, 1) * 2, false})
		note := ""
		if a := f.Fill.Arithmetic(cf); a != "" {
			note = "(" + a + ")"
		}
		if note != "" {
			out = append(out, field{"", st.Dim.Render(note), 4 + i, true})
		}
	}
	if at := f.Fill.CountedAt; f.Fill.Counted && !at.IsZero() && f.Sample.Time.Sub(at) >= f.Sample.Interval {
		// the census lags the count: say when it counted, so its classes are not read as now's
		out = append(out, field{"", st.Dim.Render("census " + at.Format("15:04:05") + ", count now " + units.Int(f.Sample.Conntrack.Count)), 5, true})
	}
	if tops := f.Rates.Entries.TopDests; len(tops) > 0 {
		out = append(out, field{"top", st.Value.Render(foreign(tops[0].Key)), 3, false})
		if srcs := f.Rates.Entries.TopSources; len(srcs) > 0 {
			out = append(out, field{"", st.Dim.Render("from ") + st.Value.Render(foreign(srcs[0].Key)), 6, true})
		}
	}
	return out
}

// episodeLines lists pinned episodes, newest first, one per line.
func episodeLines(st *styles.Styles, eps []diagnose.Episode, n int, others []model.FullNS) []string {
	if n <= 0 {
		return nil
	}
	if len(eps) == 0 && len(others) > 0 {
		return []string{st.Label.Render("episodes ") + st.Dim.Render("none in the host table; another namespace's is at its cap (N)")}
	}
	if len(eps) == 0 {
		return []string{st.Label.Render("episodes ") + st.Dim.Render("none: the table has not been pinned at its cap")}
	}
	var lines []string
	for i := len(eps) - 1; i >= 0 && len(lines) < n; i-- {
		e := eps[i]
		end := e.Last.Local().Format("15:04:05")
		sty := st.Warn
		if e.Open {
			end, sty = "now", st.Crit
		}
		label := "episode  "
		if len(lines) > 0 {
			label = "         "
		}
		lines = append(lines, st.Label.Render(label)+sty.Render(fmt.Sprintf("%s–%s", e.Seen.Local().Format("15:04:05"), end))+
			fmt.Sprintf("  pinned %s at %s  %s drops", units.Dur(e.Duration()), e.CapsText(), units.Int(e.Drops)))
	}
	if len(eps) > n {
		lines[len(lines)-1] += st.Dim.Render(fmt.Sprintf("  (+%d earlier)", len(eps)-n))
	}
	return lines
}
