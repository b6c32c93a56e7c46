package exporter

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/remote/metrics"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
)

// TestPlanSeriesAreTheReportsPlan: over every recorded incident, the
// exporter's plan series at the moment the report plans on (its newest
// pressed frame before a knob changed) are the report's plan — each knob
// of one number, its value now and proposed, and the table's memory now
// and as planned — and they are absent where the report has no plan, or
// one that proposes nothing, and once the press is over for the window.
func TestPlanSeriesAreTheReportsPlan(t *testing.T) {
	planned := 0
	for _, path := range recordingtest.Incidents(t, "../..") {
		rec := recordingtest.Read(t, path)
		an := diagnose.NewAnalyzer(2)
		in := incident.New(rec.Host, rec.Samples[0].Interval)
		for _, s := range rec.Samples {
			in.Add(an.Add(s))
		}
		d, ok := in.Diagnosis(0)
		e := New("test", 24*time.Hour) // a window the whole recording: a press never ends in it
		e.host = rec.Host
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(e)
		for _, s := range rec.Samples {
			e.Observe(s)
			if ok && s.Time.Equal(in.PlanAt()) {
				break
			}
		}
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		m := families(fams)
		knobs, memory := m[metrics.PlanKnob.Name], m[metrics.PlanMemory.Name]
		if !ok || len(d.Plan.Changes) == 0 {
			if len(knobs)+len(memory) > 0 {
				t.Errorf("%s: no plan in the report, the exporter serves %v %v", path, knobs, memory)
			}
			continue
		}
		planned++
		for _, c := range d.Plan.Changes {
			cur, err1 := strconv.ParseFloat(c.Current, 64)
			prop, err2 := strconv.ParseFloat(c.Proposed, 64)
			if err1 != nil || err2 != nil {
				continue // a knob of two numbers has no series
			}
			if knobs[c.Key+",current,"] != cur || knobs[c.Key+",proposed,"] != prop {
				t.Errorf("%s: %s %s → %s in the report, the exporter serves %v", path, c.Key, c.Current, c.Proposed, knobs)
			}
		}
		now := tuning.CostOf(incident.KnobsAt(d.Now.Sample.Conntrack), nil, d.Plan.Cost.EntryBytes, rec.Host.MemTotal)
		if memory["proposed,"] != float64(d.Plan.Cost.Bytes) || memory["current,"] != float64(now.Bytes) {
			t.Errorf("%s: the table's memory %d B now and %d B planned, the exporter serves %v", path, now.Bytes, d.Plan.Cost.Bytes, memory)
		}
		if len(m[metrics.PlanClassShare.Name]) == 0 && d.Now.Fill.Known() {
			t.Errorf("%s: the plan's moment knows its classes, no share is served", path)
		}
	}
	if planned < 3 {
		t.Errorf("the exporter's plan was held to the report's in %d recordings; want the table-full ones at least", planned)
	}
}

// TestPlanSeriesEndWithThePress: a plan is served while its press is in
// the window, and not once the window passed without a pressed frame.
func TestPlanSeriesEndWithThePress(t *testing.T) {
	rec := recordingtest.Read(t, "../../remote/report/testdata/lab-table-full.jsonl")
	e := New("test", 5*time.Second)
	e.host = rec.Host
	served := false
	for _, s := range rec.Samples {
		e.Observe(s)
		served = served || e.take().plan != nil
	}
	if !served {
		t.Fatal("no plan was served over a table-full incident")
	}
	last := rec.Samples[len(rec.Samples)-1]
	for i := 1; i <= 10; i++ { // quiet samples past the window
		s := last
		s.Time = last.Time.Add(time.Duration(i) * time.Second)
		s.Conntrack.Count, s.Conntrack.Peak = 10, 10
		e.Observe(s)
	}
	if p := e.take().plan; p != nil {
		t.Errorf("the press ended over the window ago, a plan is still served: %+v", p.changes)
	}
}
