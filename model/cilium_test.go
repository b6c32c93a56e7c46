package model

import (
	"strings"
	"testing"
)

func TestRuleCiliumMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		maps *CiliumMaps
		want string // "" for no verdict
	}{
		{"no Cilium here", nil, ""},
		{"maps well under their size", &CiliumMaps{Maps: []CiliumMap{{"cilium_ct4_global", 100000, 524288}}}, ""},
		{"the TCP map near its size", &CiliumMaps{Maps: []CiliumMap{{"cilium_ct_any4_global", 10, 262144}, {"cilium_ct4_global", 510000, 524288}}},
			"Cilium's conntrack map cilium_ct4_global holds 510,000 of its 524,288 entries (97 %) with nf_conntrack at 300 of max 262,144: the limit is Cilium's, not this kernel's table"},
		{"the other map names its own knob", &CiliumMaps{Maps: []CiliumMap{{"cilium_ct_any4_global", 250000, 262144}}}, "raise bpf-ct-global-any-max"},
		{"a map of unknown size is not judged", &CiliumMaps{Maps: []CiliumMap{{"cilium_ct4_global", 5, 0}}}, ""},
	} {
		s := table(300, 300, 262144)
		s.Cilium = tc.maps
		v, ok := ruleCiliumMap(Inputs{Sample: s})
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: %s", tc.name, v)
		case tc.want != "" && (!ok || !strings.Contains(v.Evidence, tc.want)):
			t.Errorf("%s: %v %q, want %q", tc.name, ok, v.Evidence, tc.want)
		}
	}
}
