package tuning

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestFixElsewhereNamesTheVerdictsFix: when the verdict's fix is not a
// knob, the plan says where it is: a refusal for a NAT's drops (the
// ruleset), an insert clash (the clients) and an instance's allowance;
// "nothing to propose" with the way out for stale timeouts with no drops;
// and nothing of the kind for a verdict whose fix is a knob.
func TestFixElsewhereNamesTheVerdictsFix(t *testing.T) {
	c := model.Conntrack{Status: model.TableTracked, Count: 300, Peak: 300, Max: 262144, Buckets: 262144, TimeWaitHold: 120}
	knobs := KnobState{Current: map[string]string{knob.Max: "262144", knob.Hashsize: "262144", knob.TimeWait: "120"}, Global: true}
	host := model.Host{Kernel: "6.1.0", MemTotal: 2 << 30}
	for _, tc := range []struct {
		kind      verdict.Kind
		drops     uint64
		refusal   string // "" : none wanted
		nothing   string // in Nothing(), when no refusal
		elsewhere bool
	}{
		{verdict.NATPorts, 12, "NAT PORTS: the source NAT is out of ports: the fix is in the ruleset", "", true},
		{verdict.InsertClash, 3, "the fix is in the flows that clash", "", true},
		{verdict.InstanceAllowance, 5, "larger instance type", "", true},
		{verdict.StaleTimeouts, 0, "", "STALE TIMEOUTS: entries keep timeouts given before their hold was lowered: conntrack -D frees them", true},
		{verdict.StaleDNAT, 0, "", "STALE DNAT: UDP entries keep a DNAT target that is gone, refreshed by every send: conntrack -D -p udp --reply-src TARGET frees them", true},
		{verdict.ZoneFull, 0, "", "ZONE FULL: a conntrack zone is at its OVS limit: OVS sets it", true},
		{verdict.CiliumCT, 0, "", "CILIUM CT MAP: Cilium's conntrack map is near its size: Cilium's configuration sizes it", true},
	} {
		f := diagnose.Frame{Sample: model.Sample{Time: time.Unix(1000, 0), Conntrack: c}, Verdicts: []verdict.Verdict{{Kind: tc.kind, Clauses: []verdict.Clause{verdict.Prose("test", "…")}}}}
		f.Rates.Elapsed = time.Second
		f.Rates.CTTotal = model.CountersOf(map[model.Counter]uint64{model.Drop: tc.drops})
		p := Diagnose(Guide{Knobs: knobs, Host: host, Measured: tally.NewRing[diagnose.Frame](1), Now: f}).Plan
		switch {
		case tc.refusal != "" && !strings.Contains(p.Refusal, tc.refusal):
			t.Errorf("%s: refusal %q, want it to say %q", tc.kind, p.Refusal, tc.refusal)
		case tc.refusal == "" && (p.Refusal != "" || !p.Empty() || !strings.Contains(p.Nothing(), tc.nothing)):
			t.Errorf("%s: plan %+v says %q, want %q", tc.kind, p, p.Nothing(), tc.nothing)
		case (p.FixElsewhere != "") != tc.elsewhere:
			t.Errorf("%s: fix elsewhere %q", tc.kind, p.FixElsewhere)
		}
	}
	// HASH CHAINS where the buckets already outnumber the entries: the
	// chains are of entries not read here or of flows that hash alike, and
	// the plan doubles the buckets as the verdict says, never "room to
	// spare" beside a verdict that asks for more.
	f := diagnose.Frame{Sample: model.Sample{Time: time.Unix(1000, 0), Conntrack: c}, Verdicts: []verdict.Verdict{{Kind: verdict.HashChains, Clauses: []verdict.Clause{verdict.Prose("test", "…")}}}}
	f.Rates.Elapsed = time.Second
	p := Diagnose(Guide{Knobs: knobs, Host: host, Measured: tally.NewRing[diagnose.Frame](1), Now: f}).Plan
	if len(p.Changes) != 1 || p.Changes[0].Key != knob.Hashsize || p.Changes[0].Proposed != "524288" || p.FixElsewhere != "" {
		t.Errorf("HASH CHAINS over more buckets than entries: %+v", p)
	}
}
