package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// pinnedRun is a table of 400 entries held 120 s (TIME_WAIT) that takes
// 80 new TCP connections a second until it is full, then only what
// leaves: samples a second apart, the first n of them cut (a console
// opened during the pin).
func pinnedRun(cut int) []model.Sample {
	var out []model.Sample
	var count, newTCP, ended, drops uint64
	t0 := time.Unix(1_700_000_000, 0)
	for sec := 1; sec <= 30; sec++ {
		want := uint64(80)
		in := min(want, 400-count)
		if count == 400 {
			in = 2
			ended += 2
		}
		count = min(400, count+in) // at the cap two leave and two get in
		newTCP += in
		drops += want - in
		e := model.Entries{Source: model.EntriesEvents, Epoch: 1}
		e.New[model.ProtoTCP] = newTCP
		e.Ended[model.ClassTCPDone] = ended
		var holds model.ClassCounts
		holds[model.ClassTCPDone] = 120
		s := model.Sample{Time: t0.Add(time.Duration(sec) * time.Second), Interval: time.Second, Entries: e,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: count, Peak: count, Max: 400, Buckets: 400, TimeWaitHold: 120, Holds: holds},
			CTStats:   model.CTStats{Reported: []model.Counter{model.Drop}, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})}}},
			TCP:       model.TCP{SynRetrans: drops, ActiveOpens: newTCP}}
		if sec > cut {
			out = append(out, s)
		}
	}
	return out
}

// TestPinnedRatesSaidHonestly: a pinned table's verdict says what it
// admits and what it is asked, and what fills it keeps each class's rate
// from before the pin, or says it is unknown; never the admitted rate as
// the class's ("0 new/s held 120 s each").
func TestPinnedRatesSaidHonestly(t *testing.T) {
	for _, c := range []struct {
		name       string
		cut        int
		want, lack []string
	}{
		{"watched from before the pin", 0, []string{"tcp-closed, 80/s before the pin × 120 s", "admits 2 new/s (pinned)", "demand ≥"}, []string{"2 new/s held", " 0 new/s"}},
		{"opened during the pin", 10, []string{"tcp-closed, rate unknown while pinned, held 120 s each", "admits 2 new/s (pinned)", "demand ≥"}, []string{"new/s held", "before the pin ×"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			an := NewAnalyzer(100)
			var last Frame
			for _, s := range pinnedRun(c.cut) {
				last = an.Add(s)
			}
			if !last.Pinned || len(last.Verdicts) == 0 || last.Verdicts[0].Kind != verdict.TableFull {
				t.Fatalf("not a pinned TABLE FULL: %+v", last.Verdicts)
			}
			ev := last.Verdicts[0].Text()
			for _, w := range c.want {
				if !strings.Contains(ev, w) {
					t.Errorf("the verdict lacks %q: %s", w, ev)
				}
			}
			for _, l := range c.lack {
				if strings.Contains(ev, l) {
					t.Errorf("the verdict says %q: %s", l, ev)
				}
			}
			if !last.Fill.Pinned || last.Fill.RatesBefore != (c.cut == 0) {
				t.Errorf("fill: pinned %v, rates before %v", last.Fill.Pinned, last.Fill.RatesBefore)
			}
		})
	}
}

// TestRaiseNamesThePinItEnds: the interval in which the cap is raised
// still counts the old cap's drops; its TABLE FULL says which pin they
// belong to and that the raise ended it, never "256 of 16,384 entries"
// or "the table filled between reads".
func TestRaiseNamesThePinItEnds(t *testing.T) {
	run := pinnedRun(0)
	last := run[len(run)-1]
	raised := last
	raised.Time = last.Time.Add(time.Second)
	raised.Conntrack.Max, raised.Conntrack.Peak = 16384, last.Conntrack.Count
	raised.CTStats = model.CTStats{Reported: []model.Counter{model.Drop}, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: last.CTStats.PerCPU[0].Values.Get(model.Drop) + 8})}}}
	an := NewAnalyzer(len(run) + 1)
	for _, s := range run {
		an.Add(s)
	}
	v := an.Add(raised).Verdict()
	if v.Kind != verdict.TableFull || !strings.Contains(v.Text(), "pinned at max 400 for") || !strings.Contains(v.Text(), "until it was raised to 16,384 in this interval") {
		t.Errorf("the raise's interval: %s", v)
	}
	if strings.Contains(v.Text(), "of 16,384 entries") || strings.Contains(v.Text(), "between reads") {
		t.Errorf("the raise's interval speaks of the new cap as full: %s", v)
	}
}

// TestPinnedSaidAsTheEpisodeLine: sample times jitter by a millisecond or
// two; a pin of one interval reads "pinned 1 s", as the episode line
// (units.Dur) says it, never "999 ms" beside it.
func TestPinnedSaidAsTheEpisodeLine(t *testing.T) {
	an := NewAnalyzer(100)
	var f Frame
	for i, s := range pinnedRun(0) {
		jitter := time.Duration((i+1)%2) * time.Millisecond // 999 ms, then 1,001 ms, as an agent measures them
		s.Time, s.Interval = s.Time.Add(-jitter), s.Interval-jitter+time.Duration(i%2)*time.Millisecond
		if s.Conntrack.Count == s.Conntrack.Max { // dropping from the first sample at the cap, as the demo does
			v := &s.CTStats.PerCPU[0].Values
			v.Set(model.Drop, v.Get(model.Drop)+8)
		}
		f = an.Add(s)
		if !f.Pinned {
			continue
		}
		text := f.Verdict().Text()
		eps := an.Episodes()
		if len(eps) == 0 {
			t.Fatalf("%s: pinned with no episode", s.Time)
		}
		ep := eps[len(eps)-1]
		if want := "pinned " + units.Dur(ep.Duration()); strings.Contains(text, "pinned ") && !strings.Contains(text, want) {
			t.Fatalf("%s: %q does not say %q, as the episode line does", s.Time, text, want)
		}
	}
}
