package incident

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
)

// TestPlannerFollowsThePress: over incidentSamples (a climb, a pin with
// drops, the cap raised to 16,384, calm), a live table's planner has a
// plan while the press is within its quiet span, and it is the report's
// plan of the same moment; the cap raised starts its frames again for
// the table it is now; a quiet span past the last pressed frame ends the
// plan; and a press long after the table's start is planned on its own
// frames, not on a peak from before the quiet span.
func TestPlannerFollowsThePress(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	samples := incidentSamples(t0)
	host := model.Host{Name: "vm", Kernel: "6.18.44", CPUs: 2, MemTotal: 512 << 20}
	an := diagnose.NewAnalyzer(4)
	p := &Planner{Quiet: 5 * time.Second}
	report := runIncident(samples)
	want, _ := report.Diagnosis(0)
	planned := map[int]bool{}
	for i, s := range samples {
		p.Add(an.Add(s))
		d, ok := p.Diagnosis(host, 0)
		planned[i] = ok && len(d.Plan.Changes) > 0
		if s.Time.Equal(report.PlanAt()) && (!ok || len(d.Plan.Changes) == 0 || d.Plan.Changes[0].Proposed != want.Plan.Changes[0].Proposed || d.Plan.Cost != want.Plan.Cost) {
			t.Errorf("at the report's moment the planner's plan is %+v, the report's %+v", d.Plan, want.Plan)
		}
	}
	cases := []struct {
		at   int
		want bool
		why  string
	}{
		{2, false, "before the climb: no press"},
		{8, true, "pinned and dropping"},
		{12, false, "the cap raised: the frames start again for the table it is now, not pressed"},
		{19, false, "calm"},
	}
	for _, c := range cases {
		if planned[c.at] != c.want {
			t.Errorf("second %d (%s): planned %v, want %v", c.at, c.why, planned[c.at], c.want)
		}
	}

	// The same press an hour into a table that once peaked higher: the
	// frames before the quiet span are not the plan's.
	early := samples[:3]
	late := incidentSamples(t0.Add(time.Hour))[:12]
	early[1].Conntrack.Peak, early[1].Conntrack.Count = 250, 250
	an, p = diagnose.NewAnalyzer(4), &Planner{Quiet: 5 * time.Second}
	for _, s := range append(early, late...) {
		p.Add(an.Add(s))
	}
	d, ok := p.Diagnosis(host, 0)
	if !ok {
		t.Fatal("no plan for a press under way")
	}
	if first := d.Plan.MeasuredFor; first > 20*time.Second {
		t.Errorf("the plan was measured over %v: frames from before the quiet span were kept", first)
	}
}
