package model

import "sort"

// kindOrder ranks the verdict kinds most severe first, as the verdict
// rules do; TestKindOrderFollowsRules keeps the two in step.
var kindOrder = []struct {
	kind Kind
	sev  Severity
}{
	{TableFull, SevCrit}, {EarlyDropping, SevCrit}, {ListenOverflow, SevCrit}, {NATPorts, SevCrit},
	{InstanceAllowance, SevCrit}, {ZoneFull, SevCrit},
	{InsertClash, SevWarn}, {CiliumCT, SevWarn}, {PortExhaustion, SevWarn}, {HashChains, SevWarn}, {StaleTimeouts, SevWarn}, {StaleDNAT, SevWarn}, {GCBehind, SevWarn},
	{ClientStalled, SevWarn},
	{CPUBound, SevWarn}, {DiskBound, SevWarn}, {NearCap, SevWarn}, {OK, SevOK},
}

// KindSeverity is the severity of a verdict kind, and its rank among
// kinds of that severity (lower first); an unknown kind ranks last.
func KindSeverity(k Kind) (Severity, int) {
	for i, o := range kindOrder {
		if o.kind == k {
			return o.sev, i
		}
	}
	return SevOK, len(kindOrder)
}

// SortKinds orders kinds most severe first.
func SortKinds(ks []Kind) {
	sort.SliceStable(ks, func(i, j int) bool {
		_, a := KindSeverity(ks[i])
		_, b := KindSeverity(ks[j])
		return a < b
	})
}

// ProblemKinds are the verdict kinds other than OK, most severe first:
// the one list every surface that names them all uses (the exporter's
// tablefull_verdict series, its help text).
func ProblemKinds() []Kind {
	out := make([]Kind, 0, len(kindOrder)-1)
	for _, o := range kindOrder {
		if o.kind != OK {
			out = append(out, o.kind)
		}
	}
	return out
}
