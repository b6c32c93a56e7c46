package compare

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// passes makes one pass per value of figure key, each on host and kernel.
func passes(host, kernel, key string, vs ...float64) []Pass {
	var out []Pass
	for _, v := range vs {
		out = append(out, Pass{Host: model.Host{Name: host, Kernel: kernel}, Samples: 10, values: map[string]float64{key: v}})
	}
	return out
}

func TestJudgements(t *testing.T) {
	for _, c := range []struct {
		name   string
		a, b   []float64
		want   Judgement
		median [2]float64
		gain   bool
	}{
		{"five passes each, apart", []float64{100, 120, 90, 110, 130}, []float64{0, 0, 0, 0, 0}, Beyond, [2]float64{110, 0}, true},
		{"five passes each, overlapping", []float64{100, 120, 90, 110, 130}, []float64{95, 80, 70, 60, 50}, Within, [2]float64{110, 70}, true},
		{"one pass a side", []float64{100}, []float64{0}, SpreadUnknown, [2]float64{100, 0}, true},
		{"one pass against five", []float64{100}, []float64{0, 0, 1, 0, 0}, SpreadUnknown, [2]float64{100, 0}, true},
		{"the same on every pass", []float64{7, 7}, []float64{7, 7, 7}, Unchanged, [2]float64{7, 7}, false},
		{"one pass each, the same", []float64{7}, []float64{7}, Unchanged, [2]float64{7, 7}, false},
		{"an even count's median", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, Beyond, [2]float64{2.5, 25}, false},
		{"nothing read on a side", nil, []float64{1, 2}, Missing, [2]float64{0, 1.5}, false},
		{"apart only below what is printed", []float64{0.01, 0.02}, []float64{0.03, 0.04}, Unchanged, [2]float64{0, 0}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmp := Compare(passes("vm", "6.12", "drops", c.a...), passes("vm", "6.12", "drops", c.b...))
			r, ok := cmp.Row("drops")
			if !ok {
				t.Fatal("no drops row")
			}
			if r.Judgement != c.want {
				t.Errorf("judgement %q, want %q", r.Judgement, c.want)
			}
			if r.A.Median != c.median[0] || r.B.Median != c.median[1] {
				t.Errorf("medians %v and %v, want %v", r.A.Median, r.B.Median, c.median)
			}
			if r.Gain() != c.gain && r.Judgement != Missing {
				t.Errorf("gain %v, want %v", r.Gain(), c.gain)
			}
			if r.Judgement == Missing && r.Change != 0 {
				t.Errorf("a missing side changed by %v", r.Change)
			}
		})
	}
}

func TestFactorAndIncidence(t *testing.T) {
	a := passes("vm", "6.12", "new_per_second", 20, 22, 18, 21, 19)
	b := passes("vm", "6.12", "new_per_second", 200, 210, 190, 205, 195)
	for i := range a {
		a[i].values["drops"] = float64(10 * (i % 2)) // passes 1 and 3 dropped
		b[i].values["drops"] = 0
	}
	cmp := Compare(a, b)
	r, _ := cmp.Row("new_per_second")
	if r.Factor != 10 || r.Judgement != Beyond || !r.Gain() {
		t.Errorf("new/s: factor %v, %q, gain %v; want 10, beyond, a gain", r.Factor, r.Judgement, r.Gain())
	}
	if cmp.A.Dropped != 2 || cmp.A.DropsRead != 5 || cmp.B.Dropped != 0 || cmp.B.DropsRead != 5 {
		t.Errorf("incidence A %d/%d, B %d/%d; want 2/5 and 0/5", cmp.A.Dropped, cmp.A.DropsRead, cmp.B.Dropped, cmp.B.DropsRead)
	}
	if !cmp.SpreadKnown {
		t.Error("five passes a side: the spread is known")
	}
	if got := len(cmp.Moved); got != 1 { // drops: A's 0..10 and B's 0 overlap
		t.Errorf("%d rows moved, want 1 (new/s)", got)
	}
}

func TestMissingIsNotZero(t *testing.T) {
	a := passes("vm", "6.12", "syn_retransmits_per_second", 4, 5)
	b := passes("vm", "6.12", "drops", 0, 0) // B never read the TCP counters
	r, _ := Compare(a, b).Row("syn_retransmits_per_second")
	if r.Judgement != Missing || r.B.Passes != 0 || r.B.Unread != 2 {
		t.Errorf("unread on B: %q with %d passes, %d unread; want missing, 0, 2", r.Judgement, r.B.Passes, r.B.Unread)
	}
}

func TestHeldKindsAreZeroWhereTheyNeverHeld(t *testing.T) {
	a := passes("vm", "6.12", "drops", 1, 1)
	for i := range a {
		a[i].kinds = []verdict.Kind{verdict.TableFull}
		a[i].values[heldFigure(verdict.TableFull).Key] = 30
	}
	b := passes("vm", "6.12", "drops", 0, 0)
	r, ok := Compare(a, b).Row("held:" + string(verdict.TableFull))
	if !ok {
		t.Fatal("no row for TABLE FULL's time")
	}
	if r.B.Passes != 2 || r.B.Median != 0 || r.Judgement != Beyond || !r.Gain() {
		t.Errorf("TABLE FULL held: B %d passes median %v, %q; want 2 passes at 0, beyond the spread", r.B.Passes, r.B.Median, r.Judgement)
	}
}

func TestAcrossHostsAndKernels(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []Pass
		want []string
	}{
		{"one host, one kernel", passes("vm", "6.12", "drops", 1), passes("vm", "6.12", "drops", 0), nil},
		{"two hosts", passes("vm", "6.12", "drops", 1), passes("db", "6.12", "drops", 0), []string{"host"}},
		{"two kernels", passes("vm", "5.15", "drops", 1), passes("vm", "6.12", "drops", 0), []string{"kernel"}},
		{"a side over two hosts", append(passes("vm", "6.12", "drops", 1), passes("db", "6.12", "drops", 1)...),
			append(passes("vm", "6.12", "drops", 0), passes("db", "6.12", "drops", 0)...), []string{"host"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, d := range Compare(c.a, c.b).Across {
				got = append(got, d.What)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("across %v, want %v", got, c.want)
			}
		})
	}
}

func TestKnobsBeganAndEnded(t *testing.T) {
	at := func(max uint64) []incident.KnobValue {
		return incident.KnobsOf(model.Conntrack{Max: max, Buckets: 512, TimeWaitHold: 120})
	}
	a := passes("vm", "6.12", "drops", 5, 6)
	b := passes("vm", "6.12", "drops", 0, 0)
	for i := range a {
		a[i].Began, a[i].Ended = at(512), at(512)
		b[i].Began, b[i].Ended = at(512), at(16384)
	}
	rows := Compare(a, b).Knobs
	i := slices.IndexFunc(rows, func(r KnobRow) bool { return r.Key == knob.Max })
	if i < 0 {
		t.Fatalf("no nf_conntrack_max among %v", rows)
	}
	if r := rows[i]; !r.Changed() || !slices.Equal(r.BEnded, []uint64{16384}) || !slices.Equal(r.ABegan, []uint64{512}) {
		t.Errorf("nf_conntrack_max: %+v", r)
	}
	for _, r := range rows {
		if r.Key == knob.TimeWait && r.Changed() {
			t.Errorf("the TIME_WAIT hold never changed: %+v", r)
		}
		if r.Key == knob.UDPTimeout {
			t.Errorf("a knob no pass read is listed: %+v", r)
		}
	}
}

func TestTheSameRecordingTwice(t *testing.T) {
	a := passes("vm", "6.12", "drops", 40)
	a[0].values["new_per_second"] = 17
	cmp := Compare(a, a)
	if !cmp.Same || len(cmp.Moved) != 0 || len(cmp.Across) != 0 {
		t.Errorf("a recording against itself: same %v, moved %d, across %v", cmp.Same, len(cmp.Moved), cmp.Across)
	}
}

// TestPassLeavesNonFiniteUnread: a figure no arithmetic can judge is not
// read, so the comparison says it is missing and its JSON encodes.
func TestPassLeavesNonFiniteUnread(t *testing.T) {
	in := incident.New(model.Host{Name: "vm"}, time.Second)
	in.Samples, in.Overall.Tracked, in.Overall.DropsPS = 2, 1, math.Inf(1)
	in.Overall.CPU, in.Overall.BusyPct = 1, math.NaN()
	p := PassOf("hostile.jsonl", in)
	for _, key := range []string{"drops_per_second", "cpu_busy_percent"} {
		if v, ok := p.Value(key); ok {
			t.Errorf("%s read as %v", key, v)
		}
	}
	if _, ok := p.Value("drops"); !ok {
		t.Error("the finite drops were left unread")
	}
	if _, err := json.Marshal(Compare([]Pass{p}, []Pass{p})); err != nil {
		t.Errorf("the comparison does not encode: %v", err)
	}
}
