package diagnose

import (
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestKindTable: the one table of kinds holds every kind once, most
// severe first, ends with OK, gives every other kind a rule, and a kind
// whose fix is elsewhere names no knob a plan may change for it; the
// verdicts Judge returns carry their row's severity and come in the
// table's order.
func TestKindTable(t *testing.T) {
	seen := map[verdict.Kind]bool{}
	knobs := []string{knob.Max, knob.TimeWait, knob.SynSent, knob.SynRecv, knob.LastAck, knob.UDPTimeout, knob.UDPStream, knob.Hashsize, knob.Somaxconn, knob.SynBacklog, knob.PortRange, knob.TwReuse}
	for i, s := range kindTable {
		if seen[s.Kind] {
			t.Errorf("%s is in the table twice", s.Kind)
		}
		seen[s.Kind] = true
		if i > 0 && s.Severity > kindTable[i-1].Severity {
			t.Errorf("%s (%v) ranks below %s (%v)", s.Kind, s.Severity, kindTable[i-1].Kind, kindTable[i-1].Severity)
		}
		if s.Kind != verdict.OK && len(s.rules) == 0 {
			t.Errorf("%s has no rule", s.Kind)
		}
		if s.FixElsewhere != "" && len(s.Knobs) > 0 {
			t.Errorf("%s says its fix is not a knob, yet names %v", s.Kind, s.Knobs)
		}
		for _, k := range s.Knobs {
			if !slices.Contains(knobs, k) {
				t.Errorf("%s names an unknown knob %q", s.Kind, k)
			}
		}
	}
	if last := kindTable[len(kindTable)-1]; last.Kind != verdict.OK || last.Severity != verdict.SevOK {
		t.Errorf("the table ends with %s, want OK", last.Kind)
	}
	if got := len(ProblemKinds()); got != len(kindTable)-1 {
		t.Errorf("%d problem kinds of %d rows", got, len(kindTable))
	}
	for _, in := range []Inputs{
		{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: 4096, Peak: 4096, Max: 4096}}, Rates: model.Rates{Elapsed: time.Second, CTTotal: model.CountersOf(map[model.Counter]uint64{model.Drop: 5, model.EarlyDrop: 3, model.ChainTooLong: 1})}},
		{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: 3900, Peak: 3900, Max: 4096}}, Rates: model.Rates{Elapsed: time.Second, ListenOverflowsPS: 3}},
		{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: 300, Peak: 300, Max: 262144}, NAT: &model.NAT{}},
			Rates: model.Rates{Elapsed: time.Second, CTTotal: model.CountersOf(map[model.Counter]uint64{model.Drop: 5, model.InsertFailed: 5})}},
	} {
		vs := Judge(in)
		if len(vs) < 2 && vs[0].Kind != verdict.InsertClash {
			t.Errorf("want several verdicts: %v", vs)
		}
		for i, v := range vs {
			sev, rank := KindSeverity(v.Kind)
			if sev != v.Severity {
				t.Errorf("%s: the table says %v, the verdict %v", v.Kind, sev, v.Severity)
			}
			if _, prev := KindSeverity(vs[max(i-1, 0)].Kind); prev > rank {
				t.Errorf("%s comes after %s: not the table's order", v.Kind, vs[i-1].Kind)
			}
		}
	}
}
