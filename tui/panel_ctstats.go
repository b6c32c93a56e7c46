package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/tui/styles"
)

// counterHeads are short column heads for the per-CPU counters.
var counterHeads = map[model.Counter]string{
	model.Drop: "drop", model.EarlyDrop: "early", model.InsertFailed: "insfail", model.Invalid: "invalid",
	model.Error: "error", model.SearchRestart: "restart", model.ClashResolve: "clash", model.ChainTooLong: "chain",
}

// ctStatsLines renders the per-CPU counter deltas of one interval: a row
// per CPU (the busiest first when they do not all fit) and a total. Only
// counters the kernel reports are shown.
// With titled, the first header cell carries the panel's title.
func ctStatsLines(st *styles.Styles, f diagnose.Frame, rows int, titled bool) []string {
	s := f.Sample.CTStats
	if len(f.Rates.CT) == 0 {
		note := foreign(s.Note)
		if note == "" {
			note = "no per-CPU conntrack stats"
		}
		return []string{st.Dim.Render(note)}
	}
	counters := s.Reported
	cell := func(v string) string { return fmt.Sprintf("%8s", v) }
	var head strings.Builder
	for _, c := range counters {
		head.WriteString(cell(counterHeads[c]))
	}
	first := st.Label.Render(fmt.Sprintf("%-5s", "cpu"))
	if titled {
		first = st.PanelTitle.Render(fmt.Sprintf("%-5s", "ct/s"))
	}
	lines := []string{first + st.Label.Render(head.String())}
	render := func(name string, vals model.CounterValues) string {
		var b strings.Builder
		b.WriteString(fmt.Sprintf("%-5s", name))
		for _, c := range counters {
			v := vals.Get(c)
			txt := cell(units.Int(v))
			switch {
			case v > 0 && c.Loses():
				txt = st.Crit.Render(txt)
			case v == 0:
				txt = st.Dim.Render(txt)
			}
			b.WriteString(txt)
		}
		return b.String()
	}
	cpus := append([]model.CPUCounters(nil), f.Rates.CT...)
	room := rows - 2                   // header and total
	hidden := max(0, f.CPUs-len(cpus)) // rows the history did not keep (diagnose.HistoryRows)
	if hidden > 0 || len(cpus) > room {
		room-- // a row of its own says how many are not shown (beside the total it was cut)
	}
	if len(cpus) > room {
		sort.SliceStable(cpus, func(i, j int) bool { return cpus[i].Activity() > cpus[j].Activity() })
		hidden += len(cpus) - max(0, room)
		cpus = cpus[:max(0, room)]
		sort.SliceStable(cpus, func(i, j int) bool { return cpus[i].CPU < cpus[j].CPU })
	}
	for _, r := range cpus {
		lines = append(lines, render(fmt.Sprint(r.CPU), r.Values))
	}
	if hidden > 0 {
		lines = append(lines, st.Dim.Render(fmt.Sprintf("%d quieter CPUs not shown", hidden)))
	}
	return append(lines, render("all", f.Rates.CTTotal))
}

// ctStatsWidth is the width the per-CPU table needs.
func ctStatsWidth(s model.CTStats) int { return 5 + 8*len(s.Reported) + 2 }
