package exporter

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promdto "github.com/prometheus/client_model/go"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/metrics"
	"github.com/tablefull/tablefull/remote/recording/recordingtest"
)

// TestEverySampleExportsItsFrame: over every sample of every recording
// we have, the exporter says what the console's frame says: the entries
// and the limit are its count and cap; tablefull_verdict is 1 for
// exactly the kinds of its verdicts (a window shorter than a sample), 0
// for the others, and left out for a kind judged from a part not read;
// each kind's seconds never fall; and every series is exported once (the
// pedantic registry refuses two of one name and labels).
func TestEverySampleExportsItsFrame(t *testing.T) {
	for _, path := range recordingtest.Incidents(t, "../..") {
		rec := recordingtest.Read(t, path)
		e := New("test", time.Millisecond)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(e)
		an := diagnose.NewAnalyzer(2)
		seconds := map[string]float64{}
		for _, s := range rec.Samples {
			fr := an.Add(s)
			e.Observe(s)
			fams, err := reg.Gather()
			if err != nil {
				t.Fatalf("%s %s: %v", path, s.Time.Format("15:04:05"), err)
			}
			checkExported(t, path+" "+s.Time.Format("15:04:05"), fr, families(fams), seconds)
		}
	}
}

// families is the gathered series by name, each by its label values.
func families(fams []*promdto.MetricFamily) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, f := range fams {
		series := map[string]float64{}
		for _, m := range f.Metric {
			key := ""
			for _, l := range m.Label {
				key += l.GetValue() + ","
			}
			switch {
			case m.Gauge != nil:
				series[key] = m.Gauge.GetValue()
			case m.Counter != nil:
				series[key] = m.Counter.GetValue()
			}
		}
		out[f.GetName()] = series
	}
	return out
}

// checkExported checks one scrape against the frame it was taken at;
// seconds are each kind's seconds at the scrape before.
func checkExported(t *testing.T, at string, fr diagnose.Frame, m map[string]map[string]float64, seconds map[string]float64) {
	t.Helper()
	c := fr.Sample.Conntrack
	if c.Status == model.TableTracked {
		if got := m[metrics.Entries.Name][""]; got != float64(c.Count) {
			t.Errorf("%s: entries %v, the frame's count %d", at, got, c.Count)
		}
		if got := m[metrics.Limit.Name][""]; got != float64(c.Max) {
			t.Errorf("%s: limit %v, the frame's max %d", at, got, c.Max)
		}
	}
	kinds := map[string]bool{}
	for _, v := range fr.Verdicts {
		kinds[v.Kind.Label()] = true
	}
	for _, k := range verdictKinds {
		label := k.Label() + ","
		v, exported := m[metrics.Verdict.Name][label]
		notRead := !diagnose.JudgedIn(k, fr.Sample) || (diagnose.KindNeeds(k) == 0 && c.Status != model.TableTracked && c.Status != model.TableUntracked)
		switch {
		case notRead && exported:
			t.Errorf("%s: %s is judged from a part not read and exported as %v", at, k, v)
		case !notRead && !exported:
			t.Errorf("%s: %s not exported", at, k)
		case exported && (v == 1) != kinds[k.Label()]:
			t.Errorf("%s: tablefull_verdict{kind=%q} = %v, the frame's verdicts %v", at, k.Label(), v, fr.Verdicts)
		}
		if s, ok := m[metrics.VerdictSeconds.Name][label]; ok {
			if s < seconds[label] {
				t.Errorf("%s: %s's seconds fell from %v to %v", at, k, seconds[label], s)
			}
			seconds[label] = s
		}
	}
	checkWorst(t, at, m)
	checkScore(t, at, fr, m)
}

// checkScore holds tablefull_fleet_score to fleet.Score of what the
// scrape serves beside it: the worst verdict, the count and the cap, and
// the frame's drops (the window is shorter than a sample: its drops are
// the frame's own interval's).
func checkScore(t *testing.T, at string, fr diagnose.Frame, m map[string]map[string]float64) {
	t.Helper()
	score, served := m[metrics.FleetScore.Name][""]
	limit, tracked := m[metrics.Limit.Name][""]
	counted := fr.Rates.Elapsed > 0 && fr.Sample.CTStats.Reports(model.Drop)
	if !tracked || !counted {
		if served {
			t.Errorf("%s: tablefull_fleet_score %v served without a table or its drops read", at, score)
		}
		return
	}
	row := fleet.Row{Count: uint64(m[metrics.Entries.Name][""]), Limit: uint64(limit),
		DropsPS: float64(fr.Rates.CTTotal.Get(model.Drop)+fr.Rates.CTTotal.Get(model.EarlyDrop)) / fr.Rates.Elapsed.Seconds()}
	for kind, v := range m[metrics.VerdictWorst.Name] {
		if k, ok := diagnose.KindOfLabel(strings.TrimSuffix(kind, ",")); ok && v == 1 && k != verdict.OK {
			row.Kinds = []verdict.Kind{k}
		}
	}
	if want := fleet.Score(row); !served || score != want {
		t.Errorf("%s: tablefull_fleet_score %v (served %v), want %v: worst %v, %d of %d, %.2f drops/s", at, score, served, want, row.Kinds, row.Count, row.Limit, row.DropsPS)
	}
}

// checkWorst holds tablefull_verdict_worst to the kinds exported: one
// series, the most severe held (ok when none).
func checkWorst(t *testing.T, at string, m map[string]map[string]float64) {
	t.Helper()
	want := verdict.OK.Label() + ","
	for _, k := range verdictKinds {
		if m[metrics.Verdict.Name][k.Label()+","] == 1 {
			want = k.Label() + ","
			break
		}
	}
	worst := m[metrics.VerdictWorst.Name]
	if _, tracked := m[metrics.Limit.Name][""]; tracked && (len(worst) != 1 || worst[want] != 1) {
		t.Errorf("%s: tablefull_verdict_worst %v, want only %s 1", at, worst, want)
	}
}
