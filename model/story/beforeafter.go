package story

import (
	"time"

	"github.com/tablefull/tablefull/model/diagnose"
)

// Window summarises a stretch of frames: the numbers an operator compares
// before and after a change.
type Window struct {
	From, To          time.Time
	DropsPS           float64
	NewConnsPS        float64
	Pinned            time.Duration
	SynRetransPS      float64
	ListenOverflowsPS float64
}

// WindowRow is what a Window needs of one frame (about 80 bytes, so a
// window of an hour at 1 s costs a few hundred KB, not the frames).
type WindowRow struct {
	t                        time.Time
	elapsed                  time.Duration
	pinned                   bool
	drops                    uint64
	newConns, syn, overflows float64
}

// At is when the row's frame was sampled.
func (r WindowRow) At() time.Time { return r.t }

// RowOf is what a Window needs of f.
func RowOf(f diagnose.Frame) WindowRow {
	return WindowRow{t: f.Sample.Time, elapsed: f.Rates.Elapsed, pinned: f.Pinned, drops: f.Rates.Drops(),
		newConns: f.Rates.NewEntriesPS(), syn: f.Rates.SynRetransPS, overflows: f.Rates.ListenOverflowsPS}
}

// summariseRows averages the rows' rates over their span, which begins
// no earlier than lo: a row's interval is counted only from there, so the
// window's length is what its pinned time and rates are counted over,
// whatever gap came before its first row.
func summariseRows(rows []WindowRow, lo time.Time) Window {
	var w Window
	if len(rows) == 0 {
		return w
	}
	w.From, w.To = rows[0].t, rows[len(rows)-1].t
	var secs float64
	for _, r := range rows {
		d := min(r.elapsed, r.t.Sub(lo))
		if d <= 0 {
			continue
		}
		if secs == 0 { // the first row counted: where the window begins
			w.From = r.t.Add(-d)
		}
		s := d.Seconds()
		secs += s
		w.DropsPS += float64(r.drops) * s / r.elapsed.Seconds()
		w.NewConnsPS += r.newConns * s
		w.SynRetransPS += r.syn * s
		w.ListenOverflowsPS += r.overflows * s
		if r.pinned {
			w.Pinned += d
		}
	}
	if secs > 0 {
		w.DropsPS /= secs
		w.NewConnsPS /= secs
		w.SynRetransPS /= secs
		w.ListenOverflowsPS /= secs
	}
	return w
}

// BeforeAfter splits frames at mark into two windows of equal length: as
// long as the time since mark allows, at most span each.
func BeforeAfter(frames []diagnose.Frame, mark time.Time, span time.Duration) (before, after Window) {
	rows := make([]WindowRow, len(frames))
	for i, f := range frames {
		rows[i] = RowOf(f)
	}
	return SplitRows(rows, mark, span)
}

// SplitRows summarises rows into the windows of span before and after
// mark.
func SplitRows(rows []WindowRow, mark time.Time, span time.Duration) (before, after Window) {
	if len(rows) == 0 {
		return
	}
	d := min(span, rows[len(rows)-1].t.Sub(mark))
	var b, a []WindowRow
	for _, r := range rows {
		switch {
		case !r.t.After(mark) && r.t.After(mark.Add(-d)):
			b = append(b, r)
		case r.t.After(mark) && !r.t.After(mark.Add(d)):
			a = append(a, r)
		}
	}
	return summariseRows(b, mark.Add(-d)), summariseRows(a, mark)
}

// CompareSpan is the longest window compared before and after a change
// (the tuning panel's and the report's).
const CompareSpan = time.Minute

// Between summarises the frames sampled after from and no later than to
// (zero: no bound), each over its own interval; the first frame's
// interval counts from its previous sample. A caller leaving out the
// interval a change fell in starts from the sample that first read it.
func Between(frames diagnose.Frames, from, to time.Time) Window {
	var rows []WindowRow
	for i := range frames.Len() {
		f := frames.At(i)
		t := f.Sample.Time
		if t.After(from) && (to.IsZero() || !t.After(to)) {
			rows = append(rows, RowOf(f))
		}
	}
	if len(rows) == 0 {
		return Window{}
	}
	return summariseRows(rows, rows[0].t.Add(-rows[0].elapsed))
}
