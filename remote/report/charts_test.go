package report

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
)

// TestLinesBreakAtGaps: a gap in the stream ends a line, so the charts
// show it as a gap, not as a straight line across it.
func TestLinesBreakAtGaps(t *testing.T) {
	var tl incident.Timeline
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 20 {
		at := t0.Add(time.Duration(i) * time.Second)
		gap := i == 10
		if i >= 10 {
			at = at.Add(time.Minute) // the stream was down for a minute
		}
		s := model.Sample{Time: at, Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: 5, Peak: 5, Max: 10}}
		tl.Add(diagnose.Frame{Sample: s, Rates: model.Rates{Elapsed: time.Second}, Gap: gap})
	}
	segs := segments(tl.Buckets(), func(b incident.Bucket) float64 { return float64(b.Peak) })
	if len(segs) != 2 || len(segs[0]) != 10 || len(segs[1]) != 10 {
		t.Errorf("got %d segments, want 2 of 10 points: one before the gap, one after", len(segs))
	}
	if sp := spans(tl.Buckets(), func(incident.Bucket) bool { return true }); len(sp) != 2 {
		t.Errorf("shaded spans across a gap: got %d, want 2", len(sp))
	}
}

// TestLinesBreakWhereNotRead: CPU not read in the middle of a recording
// is no line there — not a line at 0 % busy.
func TestLinesBreakWhereNotRead(t *testing.T) {
	var tl incident.Timeline
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 20 {
		s := model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: 5, Peak: 5, Max: 10}}
		r := model.Rates{Elapsed: time.Second, CPUAll: model.CPUUse{CPU: -1, User: 50, Idle: 50}}
		if i >= 8 && i < 12 {
			r.Absent, r.CPUAll = model.Parts(0).With(model.PartCPU), model.CPUUse{CPU: -1}
		}
		tl.Add(diagnose.Frame{Sample: s, Rates: r})
	}
	segs := segments(tl.Buckets(), incident.Bucket.BusyPct)
	if len(segs) != 2 || len(segs[0]) != 8 || len(segs[1]) != 8 {
		t.Fatalf("got %d segments (%v), want 2 of 8 points around the 4 s not read", len(segs), segs)
	}
	for _, seg := range segs {
		for _, p := range seg {
			if p.y != 50 {
				t.Errorf("busy %v, want 50: the unread seconds counted as 0", p.y)
			}
		}
	}
}

// TestValueTicks: round steps on a linear axis, powers of ten on a log
// one, the rows of a band; labels with thousands separators.
func TestValueTicks(t *testing.T) {
	labels := func(c *chart) []string {
		var out []string
		for _, tk := range c.yTicks() {
			out = append(out, tk.label)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		c    chart
		want []string
	}{
		{"linear", chart{yLo: 0, yHi: 4500}, []string{"0", "1,000", "2,000", "3,000", "4,000"}},
		{"small", chart{yLo: 0, yHi: 1}, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{"log", chart{yLo: 1, yHi: 500000, logY: true}, []string{"1", "10", "100", "1,000", "10,000", "100,000"}},
		{"band", chart{rows: []string{"OK", "TABLE FULL"}}, []string{"OK", "TABLE FULL"}},
	} {
		if got := labels(&tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := esc(`<script>&"`); got != "&lt;script&gt;&amp;&#34;" {
		t.Errorf("escaped %q", got)
	}
}

// TestChartAxesFitWhatTheyDraw: over every recording we have, the table
// chart's value axis ends near the highest count or cap (a cap of 400
// read up to 600 before, to make room for a legend that now sits above
// the data), the load chart's at 100 %, and the TCP chart's ceiling,
// far below the rates, is drawn on a log axis rather than on the zero
// line.
func TestChartAxesFitWhatTheyDraw(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/incidents/*.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	logSeen := false
	for _, path := range append(paths, more...) {
		r := buildFile(t, path, Options{})
		in, bs := r.Incident, r.Incident.Timeline.Buckets()
		a := axisOf(in)
		top := func(c *chart) float64 { ts := c.yTicks(); return ts[len(ts)-1].value }
		high := max(maxOf(bs, func(b incident.Bucket) float64 { return float64(b.Peak) }), maxOf(bs, func(b incident.Bucket) float64 { return float64(b.Cap) }))
		if c := tableChart(a, in, bs).c; !c.logY && top(c) > 1.05*high {
			t.Errorf("%s: the table chart's axis runs to %v for a highest value of %v", filepath.Base(path), top(c), high)
		}
		if c := loadChart(a, in, bs).c; top(c) != 100 || c.yHi != 100 {
			t.Errorf("%s: the load chart's axis runs to %v %% (last label %v)", filepath.Base(path), c.yHi, top(c))
		}
		c := tcpChart(a, in, bs).c
		if lo := minOf(bs, func(b incident.Bucket) float64 { return b.Ceiling }); lo > 0 && c.yHi/lo > 8 {
			logSeen = true
			if !c.logY {
				t.Errorf("%s: a ceiling of %v/s under rates up to %v/s on a linear axis", filepath.Base(path), lo, c.yHi)
			}
		}
	}
	if !logSeen {
		t.Error("no recording has a ceiling far below its rates: the TCP chart's log axis is not tested")
	}
}
