package diagnose

import (
	"cmp"
	"slices"

	"github.com/tablefull/tablefull/model"
)

// HistoryRows is how many per-CPU rows (conntrack deltas and CPU use) a
// frame keeps once a newer one arrives, the most active; HistoryDisks how
// many disks, the busiest (the console shows three). The newest frame
// keeps every row. This is what keeps an hour of a 384-CPU host in a few
// tens of megabytes.
const (
	HistoryRows  = 24
	HistoryDisks = 4
)

// compact is f as the history keeps it: the cumulative per-CPU, disk and
// kernel-log arrays of the sample dropped (rates and the analyzer's own
// kernel log carry what views show), and the rate rows cut to the
// HistoryRows most active. Cut slices are copies, so they do not pin the
// full arrays.
// HistoryClasses is how many of a frame's classes the history keeps (the
// heaviest).
const HistoryClasses = 3

func compact(f Frame) Frame {
	f.Sample.CPU = nil
	f.Sample.CTStats.PerCPU = nil
	f.Sample.Disks = nil
	f.Sample.Kernel.Lines = nil
	f.Sample.Entries.TopDests, f.Sample.Entries.TopSources = nil, nil
	f.Rates.Entries.TopDests, f.Rates.Entries.TopSources = nil, nil
	f.sustained.TopDests, f.sustained.TopSources = nil, nil
	if len(f.Fill.Classes) > HistoryClasses {
		f.Fill.Classes = append([]ClassFill(nil), f.Fill.Classes[:HistoryClasses]...)
	}
	f.Rates.CT = topRows(f.Rates.CT, HistoryRows, func(r model.CPUCounters) float64 { return float64(r.Activity()) }, func(r model.CPUCounters) int { return r.CPU })
	f.Rates.CPU = topRows(f.Rates.CPU, HistoryRows, model.CPUUse.Busy, func(u model.CPUUse) int { return u.CPU })
	f.Rates.Disks = topRows(f.Rates.Disks, HistoryDisks, func(d model.DiskRate) float64 { return d.Util }, nil)
	if ns := f.Sample.Namespaces; ns != nil && len(ns.Rows) > HistoryNamespaces { // the fullest, as the verdict names them
		kept := *ns
		kept.Rows = append([]model.NetNS(nil), ns.Rows[:HistoryNamespaces]...)
		for _, r := range ns.Rows[HistoryNamespaces:] {
			kept.Others++
			kept.OthersEntries += r.Count
		}
		f.Sample.Namespaces = &kept
	}
	return f
}

// HistoryNamespaces is how many namespaces a frame in the history keeps
// (the newest keeps MaxNamespaceRows).
const HistoryNamespaces = 5

// topRows keeps the n rows with the highest score, in their order by id
// (or their first order when id is nil); of rows scoring the same, the
// earlier is kept. It scores each row once and keeps only n as it goes
// (a 384-CPU sample is cut every second, not sorted).
func topRows[T any](rows []T, n int, score func(T) float64, id func(T) int) []T {
	if len(rows) <= n {
		return rows
	}
	if n <= 0 {
		return []T{}
	}
	kept := make([]T, 0, n) // its own array: the full one is not pinned
	scores := make([]float64, 0, n)
	for _, r := range rows {
		sc := score(r)
		if len(kept) == n && !(sc > scores[n-1]) {
			continue
		}
		at := len(kept) // after every kept row scoring as much or more
		for at > 0 && scores[at-1] < sc {
			at--
		}
		if len(kept) < n {
			kept, scores = append(kept, r), append(scores, sc)
		}
		copy(kept[at+1:], kept[at:len(kept)-1])
		copy(scores[at+1:], scores[at:len(scores)-1])
		kept[at], scores[at] = r, sc
	}
	if id != nil {
		slices.SortStableFunc(kept, func(a, b T) int { return cmp.Compare(id(a), id(b)) })
	}
	return kept
}
