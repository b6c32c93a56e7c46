package promread

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/remote/exporter"
)

// TestExpositionRoundTrip: the exporter's exposition, parsed by expfmt
// and read by the same parsers a drill-down uses, is the sample it was
// made of — the table, the per-CPU drops, the class holds and the other
// namespaces. A metric renamed on one side fails here. Without the
// exporter's per-CPU series, the counters come back summed, as one row a
// note names.
func TestExpositionRoundTrip(t *testing.T) {
	for _, perCPU := range []bool{true, false} {
		roundTrip(t, perCPU)
	}
}

func roundTrip(t *testing.T, perCPU bool) {
	at := time.Unix(1_700_000_000, 0)
	var holds model.ClassCounts
	holds[model.ClassTCPDone] = 120
	holds[model.ClassUDPSingle] = 30
	s := model.Sample{Time: at, Interval: time.Second,
		Conntrack: model.Conntrack{Status: model.TableTracked, Count: 3000, Peak: 3500, Max: 4096, Buckets: 1024, TimeWaitHold: 120, Holds: holds},
		CTStats: model.CTStats{Source: "procfs", Reported: []model.Counter{model.Drop, model.EarlyDrop},
			PerCPU: []model.CPUCounters{{CPU: 0, Values: model.CounterValues{}}, {CPU: 1, Values: model.CounterValues{}}}},
		Namespaces: &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Name: "web-7", Kind: "netns", PID: 42, Count: 300, Drops: 9, DropsRead: true}}},
		Kernel:     model.KernelLog{Readable: true}}
	s.CTStats.PerCPU[0].Values.Set(model.Drop, 11)
	s.CTStats.PerCPU[1].Values.Set(model.Drop, 22)
	e := exporter.New("test")
	e.PerCPU = perCPU
	e.Observe(s)
	srv := httptest.NewServer(exporter.Handler(e, ""))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(pmodel.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var m pmodel.Matrix
	for name, f := range fams {
		for _, mt := range f.Metric {
			metric := pmodel.Metric{pmodel.MetricNameLabel: pmodel.LabelValue(name), pmodel.InstanceLabel: "h:9874"}
			for _, l := range mt.Label {
				metric[pmodel.LabelName(l.GetName())] = pmodel.LabelValue(l.GetValue())
			}
			v := mt.GetGauge().GetValue() + mt.GetCounter().GetValue()
			m = append(m, &pmodel.SampleStream{Metric: metric, Values: []pmodel.SamplePair{{Timestamp: pmodel.TimeFromUnixNano(at.UnixNano()), Value: pmodel.SampleValue(v)}}})
		}
	}
	h := history{step: time.Second, at: map[int64]*model.Sample{}}
	h.table(m)
	h.perCPU(m)
	h.classes(m)
	got := h.samples()
	if len(got) != 1 {
		t.Fatalf("%d samples read back, want 1", len(got))
	}
	c := got[0].Conntrack
	if c.Count != 3000 || c.Peak != 3500 || c.Max != 4096 || c.Buckets != 1024 || c.TimeWaitHold != 120 || c.Holds != holds {
		t.Errorf("table read back %+v, want %+v", c, s.Conntrack)
	}
	st, summedNote := got[0].CTStats, 0
	for _, n := range got[0].Notes {
		if strings.Contains(n, "per-CPU") {
			summedNote++
		}
	}
	if perCPU && (len(st.PerCPU) != 2 || st.PerCPU[1].Values.Get(model.Drop) != 22 || !st.Reports(model.EarlyDrop) || summedNote > 0) {
		t.Errorf("per-CPU counters read back %+v %q", st, got[0].Notes)
	}
	if !perCPU && (len(st.PerCPU) != 1 || st.PerCPU[0].Values.Get(model.Drop) != 33 || !st.Reports(model.EarlyDrop) || summedNote != 1) {
		t.Errorf("without per-CPU series, the counters read back %+v %q, want one row of 33 drops and a note", st, got[0].Notes)
	}
	if ns := got[0].Namespaces; ns == nil || len(ns.Rows) != 1 || ns.Rows[0].Name != "web-7" || ns.Rows[0].Count != 300 || ns.Rows[0].Drops != 9 {
		t.Errorf("namespaces read back %+v", ns)
	}
}
