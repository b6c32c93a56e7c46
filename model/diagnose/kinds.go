package diagnose

import (
	"sort"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// KindSpec is one verdict kind as every surface knows it: how severe it
// is, the knobs a plan may change for it, where its fix is when no knob
// tablefull sets is, and the rules that decide it.
type KindSpec struct {
	Kind     verdict.Kind
	Severity verdict.Severity
	// Knobs are the knobs a plan may change because this kind holds
	// (the table's own for a table that fills, somaxconn for a listen
	// queue); none for a kind whose fix is elsewhere.
	Knobs []string
	// FixElsewhere says where the fix is when it is not a knob tablefull
	// sets: the panel and tablefull tune say it instead of "nothing to
	// propose". "" when a knob fixes it, or it needs no fix.
	FixElsewhere string
	// Needs are the parts the kind is judged from besides the table.
	Needs model.Parts
	// Words are the templates of the clauses the kind's rules say.
	Words verdict.Words
	rules []rule
}

// tableKnobs are the knobs that size the table and free its classes.
var tableKnobs = []string{knob.Max, knob.Hashsize, knob.TimeWait, knob.UDPTimeout, knob.SynSent, knob.SynRecv, knob.LastAck, knob.UDPStream}

// kindTable is the one table of verdict kinds, most severe first; of
// equal severity the earlier is shown first. A new kind is a row here,
// its rule and its tests; nothing else lists kinds.
var kindTable []KindSpec

func init() { // a rule may read the table (a severity), so it is built after them
	kindTable = []KindSpec{
		{Kind: verdict.TableFull, Words: tableFullWords, Severity: verdict.SevCrit, Knobs: tableKnobs, rules: []rule{ruleTableFull, ruleNamespaceFull}},
		{Kind: verdict.EarlyDropping, Words: earlyDropWords, Severity: verdict.SevCrit, Knobs: tableKnobs, rules: []rule{ruleEarlyDrop}},
		{Kind: verdict.ListenOverflow, Words: listenWords, Severity: verdict.SevCrit, Knobs: []string{knob.Somaxconn, knob.SynBacklog}, Needs: model.Parts(model.PartTCP), rules: []rule{ruleListenOverflow}},
		{Kind: verdict.NATPorts, Words: natPortsWords, Severity: verdict.SevCrit, rules: []rule{ruleNATPorts}, FixElsewhere: "the source NAT is out of ports: the fix is in the ruleset (a wider pool, more egress addresses, random-fully) or the clients (connection reuse), not a knob tablefull sets"},
		{Kind: verdict.InstanceAllowance, Words: allowanceWords, Severity: verdict.SevCrit, rules: []rule{ruleAllowance}, FixElsewhere: "the instance's own connection tracking is over its allowance: a larger instance type (or fewer tracked flows) raises it, not a knob here"},
		{Kind: verdict.ZoneFull, Words: zoneFullWords, Severity: verdict.SevCrit, rules: []rule{ruleZoneFull}, FixElsewhere: "a conntrack zone is at its OVS limit: OVS sets it (ovs-appctl dpctl/ct-set-limits), not a knob tablefull sets"},
		{Kind: verdict.InsertClash, Words: insertClashWords, Severity: verdict.SevWarn, rules: []rule{ruleInsertClash, ruleNamespaceInsertDrops}, FixElsewhere: "entries clash on insert: the fix is in the flows that clash (their clients, their NAT), not a knob tablefull sets"},
		{Kind: verdict.InvalidPackets, Words: invalidWords, Severity: verdict.SevWarn, rules: []rule{ruleInvalid}, FixElsewhere: "conntrack finds packets invalid: nf_conntrack_tcp_be_liberal=1 keeps out-of-window TCP tracked, or the ruleset's ct state invalid drop is what stalls them; find why the tracker lost the flows (a flush, asymmetric routing), not the table's size"},
		{Kind: verdict.CiliumCT, Words: ciliumWords, Severity: verdict.SevWarn, rules: []rule{ruleCiliumMap}, FixElsewhere: "Cilium's conntrack map is near its size: Cilium's configuration sizes it (bpf-ct-global-tcp-max, bpf-ct-global-any-max), not a knob tablefull sets"},
		{Kind: verdict.PortExhaustion, Words: portsWords, Severity: verdict.SevWarn, Knobs: []string{knob.PortRange, knob.TwReuse}, Needs: model.Parts(model.PartTCP), rules: []rule{rulePortExhaustion}},
		{Kind: verdict.HashChains, Words: hashChainsWords, Severity: verdict.SevWarn, Knobs: []string{knob.Hashsize}, rules: []rule{ruleHashChains}},
		{Kind: verdict.StaleTimeouts, Words: staleWords, Severity: verdict.SevWarn, rules: []rule{ruleStaleTimeouts}, FixElsewhere: "entries keep timeouts given before their hold was lowered: conntrack -D frees them (or they run out), not a knob"},
		{Kind: verdict.StaleDNAT, Words: staleDNATWords, Severity: verdict.SevWarn, rules: []rule{ruleStaleDNAT}, FixElsewhere: "UDP entries keep a DNAT target that is gone, refreshed by every send: conntrack -D -p udp --reply-src TARGET frees them, not a knob"},
		{Kind: verdict.EntriesFlushed, Words: flushWords, Severity: verdict.SevWarn, rules: []rule{ruleFlushed}, FixElsewhere: "user space deleted many entries at once (a kube-proxy restart or an endpoint change, conntrack -F): nothing in the table to fix; if it was not meant, find the deleter"},
		{Kind: verdict.GCBehind, Words: gcBehindWords, Severity: verdict.SevWarn, rules: []rule{ruleGCBehind}},
		{Kind: verdict.DyingList, Words: dyingWords, Severity: verdict.SevWarn, rules: []rule{ruleDyingList}, FixElsewhere: "entries wait on the dying list for a listener that asked for reliable event delivery (conntrackd's) to take their DESTROY events: that listener is behind or stuck; restarting or fixing it frees them, not a knob"},
		{Kind: verdict.ClientStalled, Words: clientStalledWords, Severity: verdict.SevWarn, Needs: model.Parts(model.PartTCP).With(model.PartCPU), rules: []rule{ruleClientStalled}},
		{Kind: verdict.CPUBound, Words: cpuBoundWords, Severity: verdict.SevWarn, Needs: model.Parts(model.PartCPU), rules: []rule{ruleCPUBound}},
		{Kind: verdict.DiskBound, Words: diskBoundWords, Severity: verdict.SevWarn, Needs: model.Parts(model.PartDisks), rules: []rule{ruleDiskBound}},
		{Kind: verdict.NearCap, Words: nearCapWords, Severity: verdict.SevWarn, Knobs: tableKnobs, rules: []rule{ruleNearCap}},
		{Kind: verdict.OK, Words: okWords, Severity: verdict.SevOK},
	}
	tables := []verdict.Words{sharedWords}
	for _, s := range kindTable {
		tables = append(tables, s.Words)
	}
	words = verdict.MustMerge(tables...)
}

// SpecOf is kind k's row of the table; ok is false for a kind not in it.
func SpecOf(k verdict.Kind) (KindSpec, bool) {
	for _, s := range kindTable {
		if s.Kind == k {
			return s, true
		}
	}
	return KindSpec{}, false
}

// KindSeverity is the severity of a verdict kind, and its rank among
// kinds (lower first); an unknown kind ranks last.
func KindSeverity(k verdict.Kind) (verdict.Severity, int) {
	for i, s := range kindTable {
		if s.Kind == k {
			return s.Severity, i
		}
	}
	return verdict.SevOK, len(kindTable)
}

// SortKinds orders kinds most severe first.
func SortKinds(ks []verdict.Kind) {
	sort.SliceStable(ks, func(i, j int) bool {
		_, a := KindSeverity(ks[i])
		_, b := KindSeverity(ks[j])
		return a < b
	})
}

// ProblemKinds are the verdict kinds other than OK, most severe first:
// the one list every surface that names them all uses (the exporter's
// tablefull_verdict series, its help text).
func ProblemKinds() []verdict.Kind {
	out := make([]verdict.Kind, 0, len(kindTable)-1)
	for _, s := range kindTable {
		if s.Kind != verdict.OK {
			out = append(out, s.Kind)
		}
	}
	return out
}

// KindOfLabel is the kind whose Label is l.
func KindOfLabel(l string) (verdict.Kind, bool) {
	for _, s := range kindTable {
		if s.Kind.Label() == l {
			return s.Kind, true
		}
	}
	return "", false
}

// KindNeeds are the parts kind k is judged from besides the table, its
// row of the table of kinds: without them it can be neither said nor
// denied.
func KindNeeds(k verdict.Kind) model.Parts {
	spec, _ := SpecOf(k)
	return spec.Needs
}

// JudgedIn reports whether kind k could be judged from s: every part it
// needs was read, and for ENTRIES FLUSHED the flush watch ran (where it
// does not, the kind is unknown, not absent).
func JudgedIn(k verdict.Kind, s model.Sample) bool {
	if s.Absent&KindNeeds(k) != 0 {
		return false
	}
	if k == verdict.EntriesFlushed {
		return s.Flushes != nil && s.Flushes.Watching
	}
	return true
}
