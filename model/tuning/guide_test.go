package tuning

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestDiagnosePressedSaysSomething: at every frame of a pin, from a
// tuner that writes the global knobs and from one inside the namespace,
// the one plan proposes a change or says why not; inside, the cap is
// proposed from the host with the exact command.
func TestDiagnosePressedSaysSomething(t *testing.T) {
	host := model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}
	for _, demand := range []float64{30, 570, 5000} {
		sim := newSim(500, 120, demand)
		an := diagnose.NewAnalyzer(3600)
		for range 40 {
			f := an.Add(sim.next())
			for _, global := range []bool{true, false} {
				p := Diagnose(Guide{Knobs: KnobState{Current: maps.Clone(sim.knobs), Global: global}, Host: host, Measured: an.Frames(), Now: f}).Plan
				pressed := f.Pinned || f.Rates.Drops() > 0
				if pressed && p.Empty() && p.Refusal == "" {
					t.Fatalf("demand %v, %s: pinned or dropping and nothing said: %+v", demand, f.Sample.Time, p)
				}
				if !pressed || global {
					continue
				}
				if !strings.Contains(p.HostCommand, "--set "+knob.Max+"=") || len(p.FromHost) == 0 {
					t.Fatalf("inside the namespace the cap is not proposed from the host: %+v", p)
				}
				for _, c := range p.Changes {
					if spec, _ := Spec(c.Key); spec.Global {
						t.Fatalf("a global knob proposed to a tuner that cannot write it: %+v", c)
					}
				}
			}
		}
	}
}

// TestDiagnoseRefusesWhatNoKnobFrees: drops with the table far from
// its cap are not the cap's: a refusal that says so, never "room to
// spare".
func TestDiagnoseRefusesWhatNoKnobFrees(t *testing.T) {
	c := model.Conntrack{Status: model.TableTracked, Count: 300, Peak: 300, Max: 262144, Buckets: 262144, TimeWaitHold: 120}
	f := diagnose.Frame{Sample: model.Sample{Time: time.Unix(1000, 0), Conntrack: c}}
	f.Rates.Elapsed = time.Second
	f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: 12})
	knobs := KnobState{Current: map[string]string{knob.Max: "262144", knob.Hashsize: "262144", knob.TimeWait: "120"}, Global: true}
	p := Diagnose(Guide{Knobs: knobs, Host: model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}, Measured: tally.NewRing[diagnose.Frame](1), Now: f}).Plan
	if !p.Empty() || !strings.Contains(p.Refusal, "12 drops with the count at 300 of 262,144 are not the cap's") {
		t.Errorf("plan %+v", p)
	}
}

// TestOneShotStepsFreeTheTable: tune --dry-run run three times by hand
// during one pin, each a fresh process that measures 4 s, applied
// between with the step recorded: the next proposal is sized on what the
// count did since the last step (not a doubling), and the table is free
// within the three (each run once the table pins again). The write-up's
// ~570/s against 500 entries.
func TestOneShotStepsFreeTheTable(t *testing.T) {
	host := model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}
	sim := newSim(500, 120, 570)
	sim.clients = 8
	for range 30 {
		sim.next()
	}
	var step *Step
	for n := 1; n <= 3; n++ {
		an := diagnose.NewAnalyzer(3600) // a fresh process
		var last diagnose.Frame
		for range 4 {
			last = an.Add(sim.next())
		}
		if !last.Pinned && last.Rates.Drops() == 0 {
			t.Fatalf("free before step %d", n)
		}
		p := Diagnose(Guide{Knobs: KnobState{Current: maps.Clone(sim.knobs), Global: true, LastStep: step}, Host: host, Measured: an.Frames(), Now: last}).Plan
		if p.Empty() || p.Cost.PctOfRAM > MemWarnPct {
			t.Fatalf("step %d: %+v", n, p)
		}
		if step != nil && len(p.Notes) == 0 {
			t.Errorf("step %d does not say it was sized on the last step", n)
		}
		before := maps.Clone(sim.knobs)
		sim.apply(p.Changes)
		step = StepOf(last.Sample.Time, before, p.Changes, last.Sample.Conntrack.Count)
		t.Logf("step %d: %v %v", n, p.Changes, p.Notes)
		pinned := false
		for range 120 { // the operator runs the next dry run once it pins again
			if s := sim.next(); s.Conntrack.Count >= s.Conntrack.Max {
				pinned = true
				break
			}
		}
		if pinned {
			continue
		}
		for range 300 {
			if s := sim.next(); s.Conntrack.Count >= s.Conntrack.Max {
				t.Fatalf("step %d looked free, then pinned at %d", n, s.Conntrack.Max)
			}
		}
		return
	}
	t.Fatalf("still pinned after three one-shot steps at max %d", sim.max)
}

// TestPlanNamesWhereItsRateIsFrom: a burst of 3,000/s that has passed,
// the header at 0 new/s: a plan sized on the burst says the rate is the
// peak, when it was and the rate of now, so the panel and the header
// never disagree without saying why; a plan on now's rate adds nothing.
func TestPlanNamesWhereItsRateIsFrom(t *testing.T) {
	steady := newSim(262144, 120, 30)
	an := diagnose.NewAnalyzer(3600)
	var last diagnose.Frame
	for range 5 {
		last = an.Add(steady.next())
	}
	if in := NewInputs(steady.knobs, model.Host{}, 0, an.Frames(), last); in.RateFrom != "" {
		t.Errorf("a steady rate, now's, is said to be from elsewhere: %q", in.RateFrom)
	}
	sim := newSim(4096, 120, 3000)
	an = diagnose.NewAnalyzer(3600)
	for range 3 {
		last = an.Add(sim.next())
	}
	sim.demand = 0
	for range 5 {
		last = an.Add(sim.next())
	}
	in := NewInputs(sim.knobs, model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}, 0, an.Frames(), last)
	burst := sim.t0.Add(2 * time.Second).Format("15:04:05")
	if !strings.Contains(in.RateFrom, "at "+burst) || !strings.Contains(in.RateFrom, "(now 0/s)") {
		t.Errorf("RateFrom %q, want the burst at %s and now's 0/s", in.RateFrom, burst)
	}
	p := ProposePlan(in)
	for _, c := range p.Changes {
		if (c.Key == knob.Max || c.Key == knob.TimeWait) && !strings.Contains(c.Why.Text(), "(now 0/s)") {
			t.Errorf("%s: %q does not say where its rate is from", c.Key, c.Why.Text())
		}
	}
	if len(p.Changes) == 0 {
		t.Fatalf("no plan on the burst: %+v", p)
	}
}

// TestOneShotSizesOnItsStepBetweenRetries: a one-shot plan whose last
// interval neither dropped nor peaked at the cap (the clients backing off
// between SYN retries) while an interval seconds before it was pinned is
// still sized on the last step's record; once the pin is PressWindow
// behind, it is not (CI: a dry run between retries lost its step record).
func TestOneShotSizesOnItsStepBetweenRetries(t *testing.T) {
	at := time.Unix(10000, 0)
	frame := func(sec int, pinned bool) diagnose.Frame {
		c := model.Conntrack{Status: model.TableTracked, Count: 1000, Peak: 1000, Max: 1024, Buckets: 1024, TimeWaitHold: 120}
		if pinned {
			c.Count, c.Peak = 1024, 1024
		}
		f := diagnose.Frame{Sample: model.Sample{Time: at.Add(time.Duration(sec) * time.Second), Conntrack: c}, Pinned: pinned}
		f.Rates.Elapsed = time.Second
		return f
	}
	knobs := KnobState{Current: map[string]string{knob.Max: "1024", knob.Hashsize: "1024", knob.TimeWait: "120"}, Global: true,
		LastStep: &Step{At: at.Add(-20 * time.Second), From: 500, To: 1024, Count: 500}}
	host := model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}
	for _, tc := range []struct {
		name     string
		pinnedAt int
		sized    bool
	}{
		{"pinned 2 s before", 3, true},
		{"pinned 8 s before", 0, true},
		{"pinned 12 s before", -7, false},
	} {
		measured := tally.NewRing[diagnose.Frame](30)
		for sec := -7; sec <= 5; sec++ {
			measured.Push(frame(sec, sec == tc.pinnedAt))
		}
		now, _ := measured.Last()
		p := Diagnose(Guide{Knobs: knobs, Host: host, Measured: measured, Now: now}).Plan
		sized := strings.Contains(strings.Join(p.Notes, " "), "the last step raised the cap 500 → 1,024")
		if sized != tc.sized {
			t.Errorf("%s: sized on the step %v, want %v: %+v", tc.name, sized, tc.sized, p)
		}
	}
}

// TestLoopHeadingOverProposesWhileOtherTroubleHolds: after a step the
// count climbs for the cap (no drops yet) while the moment's only trouble
// is a busy CPU, as on a loaded machine. The loop says "still pinned: the
// next step is proposed", so the plan proposes it: the table's trouble is
// the loop's judgement, not a verdict of this one frame, and the plan
// must not contradict itself or leave the loop with nothing to apply.
func TestLoopHeadingOverProposesWhileOtherTroubleHolds(t *testing.T) {
	host := model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}
	sim := newSim(8192, 120, 72)
	an := diagnose.NewAnalyzer(3600)
	var last diagnose.Frame
	for range 5 {
		last = an.Add(sim.next())
	}
	applied := last.Sample.Time
	for range int(LoopWatch/time.Second) + 2 {
		last = an.Add(sim.next())
	}
	if last.Pinned || last.Rates.Drops() > 0 {
		t.Fatalf("the table is already pressed: %+v", last.Sample.Conntrack)
	}
	last.Verdicts = []verdict.Verdict{{Kind: verdict.CPUBound, Severity: verdict.SevWarn}}
	d := Diagnose(Guide{Knobs: KnobState{Current: maps.Clone(sim.knobs), Global: true}, Host: host, Measured: an.Frames(), Now: last, AppliedAt: applied})
	if d.Loop.State != LoopPinned {
		t.Fatalf("the loop says %s, want still pinned (heading over the cap)", d.Loop.Say())
	}
	max := ""
	for _, c := range d.Plan.Changes {
		if c.Key == knob.Max {
			max = c.Proposed
		}
	}
	if n, _ := strconv.ParseUint(max, 10, 64); n < d.Loop.Heading {
		t.Errorf("the loop says %q and the plan proposes max %q (changes %+v, refusal %q)", d.Loop.Say(), max, d.Plan.Changes, d.Plan.Refusal)
	}
	if bad := d.Contradictions(); len(bad) > 0 {
		t.Errorf("the diagnosis contradicts itself: %q", bad)
	}
}
