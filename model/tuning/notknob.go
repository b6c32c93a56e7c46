package tuning

import (
	"fmt"

	"github.com/tablefull/tablefull/model"
)

// notAKnob says, for the verdicts whose fix is not a knob tablefull
// sets, where the fix is: the surfaces (the panel, tablefull tune) say it
// instead of "nothing to propose".
var notAKnob = map[model.Kind]string{
	model.NATPorts:          "the source NAT is out of ports: the fix is in the ruleset (a wider pool, more egress addresses, random-fully) or the clients (connection reuse), not a knob tablefull sets",
	model.InsertClash:       "entries clash on insert: the fix is the clients' (single-request-reopen, a node-local DNS cache, DNS over TCP), not a knob tablefull sets",
	model.InstanceAllowance: "the instance's own connection tracking is over its allowance: a larger instance type (or fewer tracked flows) raises it, not a knob here",
	model.StaleTimeouts:     "entries keep timeouts given before their hold was lowered: conntrack -D frees them (or they run out), not a knob",
	model.ZoneFull:          "a conntrack zone is at its OVS limit: OVS sets it (ovs-appctl dpctl/ct-set-limits), not a knob tablefull sets",
	model.CiliumCT:          "Cilium's conntrack map is near its size: Cilium's configuration sizes it (bpf-ct-global-tcp-max, bpf-ct-global-any-max), not a knob tablefull sets",
	model.StaleDNAT:         "UDP entries keep a DNAT target that is gone, refreshed by every send: conntrack -D -p udp --reply-src TARGET frees them, not a knob",
}

// FixElsewhere is where the fix of now's most severe verdict is when no
// knob is it (see notAKnob): its kind and the sentence, ok false when
// the verdict's fix is a knob, or none of them holds.
func FixElsewhere(now model.Frame) (model.Kind, string, bool) {
	for _, v := range now.Verdicts { // most severe first
		if say, ok := notAKnob[v.Kind]; ok {
			return v.Kind, say, true
		}
	}
	return "", "", false
}

// Nothing is what a surface says of a plan that changes nothing and
// refuses nothing: that the knobs hold the working set, and where the fix
// is when it is not a knob.
func (p Plan) Nothing() string {
	say := fmt.Sprintf("nothing to propose: the current values hold the peak working set of %s entries with room to spare", model.Int(p.WorkingSet))
	if p.FixElsewhere != "" {
		say += "; " + p.FixElsewhere
	}
	return say
}
