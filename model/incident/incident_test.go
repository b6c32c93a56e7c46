package incident

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// incidentSamples is a small incident at 1 s: idle, a climb to the cap
// of 256, pinned with drops, the cap raised to 16,384, then calm.
func incidentSamples(t0 time.Time) []model.Sample {
	var out []model.Sample
	counts := []uint64{0, 0, 0, 72, 152, 232, 256, 256, 256, 256, 256, 256, 256, 300, 380, 460, 500, 500, 500, 500}
	var drops, syn, opens uint64
	for i, n := range counts {
		capMax := uint64(256)
		if i >= 12 {
			capMax = 16384
		}
		if n == 256 && capMax == 256 {
			drops += 8
			syn += 4
		}
		opens += 80
		out = append(out, model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second,
			Conntrack: model.Conntrack{Status: model.TableTracked, Count: n, Peak: n, Max: capMax, Buckets: 262144, TimeWaitHold: 120},
			CTStats: model.CTStats{Reported: model.AllCounters, PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops})},
				{CPU: 1, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: drops / 2})}}},
			CPU: []model.CPUTimes{{CPU: 0, User: float64(i) * 0.02, Idle: float64(i) * 0.98}},
			TCP: model.TCP{SynRetrans: syn, ActiveOpens: opens}})
	}
	return out
}

func runIncident(samples []model.Sample) *Incident {
	an := diagnose.NewAnalyzer(4)
	in := New(model.Host{Name: "vm", Kernel: "6.18.44", CPUs: 2, MemTotal: 512 << 20}, time.Second)
	for _, s := range samples {
		in.Add(an.Add(s))
	}
	in.Finish()
	return in
}

func TestIncidentStory(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	in := runIncident(incidentSamples(t0))
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	checks := []struct {
		name      string
		got, want any
	}{
		{"samples", in.Samples, 20},
		{"first pinned (the first sample read at the cap)", in.FirstPinned, at(6)},
		{"climb from", in.ClimbFrom, at(2)},
		{"time to pin", in.TimeToPin(), 4 * time.Second},
		{"first drop", in.FirstDrop, at(6)},
		{"pinned", in.Pinned, 6 * time.Second},
		{"drops (8+4 a second, 6 s)", in.Drops, uint64(72)},
		{"episodes", in.EpisodeCount, 1},
		{"peak", in.PeakCount, uint64(500)},
		{"cap at the pin", in.Start.Max, uint64(256)},
		{"changes", len(in.Changes), 1},
		{"idle while pinned", in.WhilePinned.Idle(), true},
		{"table full held", in.Held[verdict.TableFull] > 0, true},
		{"peak new conns", in.PeakNewConnsPS, 80.0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	ch := in.Changes[0]
	if ch.Key != knob.Max || ch.Before != "256" || ch.After != "16384" || !ch.Held {
		t.Errorf("change: got %+v", ch)
	}
	if ch.WindowBefore.DropsPS <= 0 || ch.WindowAfter.DropsPS != 0 {
		t.Errorf("windows: before %.1f drops/s, after %.1f: want some, then none", ch.WindowBefore.DropsPS, ch.WindowAfter.DropsPS)
	}
	if d := ch.WindowAfter.To.Sub(ch.WindowAfter.From); d > 8*time.Second {
		t.Errorf("after window %v: it cannot be longer than the recording after the change", d)
	}
	d, ok := in.Diagnosis(0)
	plan := d.Plan
	if !ok || len(plan.Changes) == 0 || plan.Changes[0].Key != knob.Max || !plan.Cost.EntryBytesAssumed {
		t.Errorf("plan: got %+v", plan)
	}
}

func TestIncidentAppliedReply(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	samples := incidentSamples(t0)
	an := diagnose.NewAnalyzer(4)
	in := New(model.Host{}, time.Second)
	for i, s := range samples {
		if i == 12 {
			in.Applied(s.Time.Add(-300*time.Millisecond), []knob.Result{
				{Key: knob.Max, Before: "256", Wanted: "16384", After: "16384", Verified: true},
				{Key: knob.Somaxconn, Before: "4096", Wanted: "8192", After: "8192", Verified: true}})
		}
		in.Add(an.Add(s))
	}
	in.Finish()
	if len(in.Changes) != 1 || in.Changes[0].Applied == nil || !in.Changes[0].Applied.Verified {
		t.Fatalf("the max change should carry the agent's read-back: %+v", in.Changes)
	}
	if len(in.UnseenApplies) != 1 || in.UnseenApplies[0].Key != knob.Somaxconn {
		t.Errorf("somaxconn is not in a sample: it is listed on its own, got %+v", in.UnseenApplies)
	}
}

func TestTimelineBounded(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		gapAt   int
		wantGap bool
	}{
		{"an hour", 3600, -1, false},
		{"twelve hours with a 10-minute gap", 43200, 20000, true},
		{"short", 10, 5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl Timeline
			t0 := time.Unix(1_800_000_000, 0)
			off := time.Duration(0)
			for i := range tt.n {
				if i == tt.gapAt {
					off = 10 * time.Minute
				}
				s := model.Sample{Time: t0.Add(time.Duration(i)*time.Second + off), Interval: time.Second,
					Conntrack: model.Conntrack{Status: model.TableTracked, Count: uint64(i%100) + 1, Peak: uint64(i%100) + 1, Max: 100}}
				f := diagnose.Frame{Sample: s, Rates: model.Rates{Elapsed: time.Second}, Pinned: diagnose.Pinned(s.Conntrack), Gap: i == tt.gapAt}
				tl.Add(f)
			}
			bs := tl.Buckets()
			if len(bs) > TimelineBuckets || len(bs) == 0 {
				t.Fatalf("got %d buckets, want 1..%d", len(bs), TimelineBuckets)
			}
			samples, gap := 0, false
			for _, b := range bs {
				samples += b.Samples
				gap = gap || b.Gap
				if b.Peak > b.Cap {
					t.Fatalf("peak %d over cap %d", b.Peak, b.Cap)
				}
			}
			if samples != tt.n {
				t.Errorf("buckets hold %d samples, want %d", samples, tt.n)
			}
			if gap != tt.wantGap {
				t.Errorf("gap: got %v, want %v", gap, tt.wantGap)
			}
			var pinned time.Duration
			for _, b := range bs {
				pinned += b.Pinned
			}
			if want := time.Duration(tt.n/100) * time.Second; tt.n >= 100 && pinned != want {
				t.Errorf("pinned %v, want %v (one sample in 100 is at the cap)", pinned, want)
			}
		})
	}
}

// TestTimelineBoundsCPUs: a bucket keeps the CPUs that dropped most, at
// most BucketCPUs of them, however many CPUs the host has.
func TestTimelineBoundsCPUs(t *testing.T) {
	var tl Timeline
	t0 := time.Unix(1_800_000_000, 0)
	for i := range 10 {
		var rows []model.CPUCounters
		for cpu := range 8192 {
			rows = append(rows, model.CPUCounters{CPU: cpu, Values: model.CountersOf(map[model.Counter]uint64{model.Drop: uint64(1 + cpu%1000)})})
		}
		s := model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second}
		tl.Add(diagnose.Frame{Sample: s, Rates: model.Rates{Elapsed: time.Second, CT: rows}})
	}
	for _, b := range tl.Buckets() {
		if len(b.CPUDrops) > BucketCPUs {
			t.Fatalf("a bucket keeps %d CPUs, want at most %d", len(b.CPUDrops), BucketCPUs)
		}
		if b.CPUDropsPS(999) == 0 {
			t.Errorf("CPU 999, among those that dropped most, is not kept")
		}
	}
}

// TestChangeRevertedLaterIsNotHeld: a change undone long after its
// window closed does not read "every later sample read it back".
func TestChangeRevertedLaterIsNotHeld(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	samples := incidentSamples(t0)
	last := samples[len(samples)-1]
	for i := 1; i <= 120; i++ { // two more minutes at the new cap, then the old one again
		s := last
		s.Time = last.Time.Add(time.Duration(i) * time.Second)
		if i > 100 {
			s.Conntrack.Max = 256
		}
		samples = append(samples, s)
	}
	in := runIncident(samples)
	if len(in.Changes) != 2 || in.Changes[0].Held || !in.Changes[1].Held {
		t.Errorf("raised then lowered 100 s later: got %+v", in.Changes)
	}
}

// TestIncidentKeepsWhatFilledIt: the frame with the largest working set
// by class and the highest demand are kept, and the plan is sized on the
// demand.
func TestIncidentKeepsWhatFilledIt(t *testing.T) {
	in := New(model.Host{MemTotal: 1 << 30}, time.Minute)
	t0 := time.Unix(1000, 0)
	ct := model.Conntrack{Status: model.TableTracked, Count: 400, Peak: 400, Max: 400, Buckets: 1024, TimeWaitHold: 120}
	fill := func(rate float64) diagnose.Fill {
		return diagnose.Fill{Basis: model.BasisEvents, Classes: []diagnose.ClassFill{{Class: model.ClassUDPSingle, RatePS: rate, Hold: 30, Entries: 400}}}
	}
	for i, c := range []struct {
		rate, demand float64
	}{{100, 0}, {700, 3100}, {300, 900}} {
		in.Add(diagnose.Frame{Sample: model.Sample{Time: t0.Add(time.Duration(i) * time.Second), Interval: time.Second, Conntrack: ct},
			Rates: model.Rates{Elapsed: time.Second, Entries: model.EntryRates{Basis: model.BasisEvents, Total: c.rate}}, Pinned: true,
			Fill: fill(c.rate), Demand: diagnose.Demand{AtLeast: c.demand, Basis: "test"}})
	}
	if ws := in.PeakFill.WorkingSet(); ws != 21000 || !in.PeakFillAt.Equal(t0.Add(time.Second)) {
		t.Errorf("peak fill %d at %v, want 700/s × 30 s = 21,000 at the second frame", ws, in.PeakFillAt)
	}
	if in.PeakDemand.AtLeast != 3100 {
		t.Errorf("peak demand %+v", in.PeakDemand)
	}
	d, _ := in.Diagnosis(256)
	p := d.Plan
	for _, ch := range p.Changes {
		if ch.Key == knob.Max && ch.Proposed == "1024" {
			t.Errorf("max proposed %s: not sized on the demand of 3,100/s", ch.Proposed)
		}
	}
}

// TestSuppressedOneMeaning: the first read of the kernel log counts its
// whole ring buffer, from before anyone watched; the console (the
// analyzer) and the report (the incident) both count from the first
// sample on, so they say the same number.
func TestSuppressedOneMeaning(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	samples := incidentSamples(t0)
	samples[0].Kernel.Suppressed = 2613 // the backlog
	samples[3].Kernel.Suppressed = 66
	an := diagnose.NewAnalyzer(100)
	in := New(model.Host{Name: "vm"}, time.Second)
	for _, s := range samples {
		in.Add(an.Add(s))
	}
	in.Finish()
	if an.Suppressed != 66 || in.Suppressed != 66 || !an.SuppressedSince.Equal(t0) {
		t.Errorf("console %d since %v, report %d: want 66 since the first sample", an.Suppressed, an.SuppressedSince, in.Suppressed)
	}
}
