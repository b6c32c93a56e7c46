package diagnose

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

func TestRuleCiliumMap(t *testing.T) {
	for _, tc := range []struct {
		name string
		maps *model.CiliumMaps
		want string // "" for no verdict
	}{
		{"no Cilium here", nil, ""},
		{"maps well under their size", &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_ct4_global", Entries: 100000, Max: 524288}}}, ""},
		{"the TCP map near its size", &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_ct_any4_global", Entries: 10, Max: 262144}, {Name: "cilium_ct4_global", Entries: 510000, Max: 524288}}},
			"Cilium's conntrack map cilium_ct4_global holds 510,000 of its 524,288 entries (97 %) with nf_conntrack at 300 of max 262,144: the limit is Cilium's, not this kernel's table"},
		{"the other map names its own knob", &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_ct_any4_global", Entries: 250000, Max: 262144}}}, "raise bpf-ct-global-any-max"},
		{"the NAT map near its size, who fills it named", &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_snat_v4_external", Entries: 520000, Max: 524288,
			Endpoints: []tally.Count{{Key: "10.0.1.5", N: 400000}}, Dests: []tally.Count{{Key: "1.1.1.1:443", N: 300000}, {Key: "8.8.8.8:53", N: 100}}}}},
			"Cilium's NAT map cilium_snat_v4_external holds 520,000 of its 524,288 entries (99 %) with nf_conntrack at 300 of max 262,144, opened most by 10.0.1.5 (400,000), to 1.1.1.1:443 (300,000), 8.8.8.8:53 (100): the limit is Cilium's, not this kernel's table; near its size Cilium finds no free source port for new flows and drops them (its drop reason: no mapping for NAT masquerade): raise bpf-nat-global-max"},
		{"a map of unknown size is not judged", &model.CiliumMaps{Maps: []model.CiliumMap{{Name: "cilium_ct4_global", Entries: 5, Max: 0}}}, ""},
	} {
		s := table(300, 300, 262144)
		s.Cilium = tc.maps
		v, ok := ruleCiliumMap(Inputs{Sample: s})
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: %s", tc.name, v)
		case tc.want != "" && (!ok || !strings.Contains(v.Text(), tc.want)):
			t.Errorf("%s: %v %q, want %q", tc.name, ok, v.Text(), tc.want)
		}
	}
}
