package diagnose

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
)

func TestRuleStaleDNAT(t *testing.T) {
	targets := []model.DNATTarget{{Target: "10.244.2.9:53", Unreplied: 40}, {Target: "10.244.1.7:53", Unreplied: 30, Gone: true}}
	for _, tc := range []struct {
		name string
		cen  *model.Census
		want string // "" for no verdict
	}{
		{"a gone target", &model.Census{Total: 90, StaleDNAT: targets, DNATChecked: true},
			"30 UDP entries a DNAT sent to 10.244.1.7:53, which the ruleset no longer names (none ever saw a reply)"},
		{"its fix names the gone one", &model.Census{Total: 90, StaleDNAT: targets, DNATChecked: true}, "conntrack -D -p udp --reply-src 10.244.1.7 drops them now"},
		{"two gone: how many each", &model.Census{Total: 90, StaleDNAT: []model.DNATTarget{{Target: "10.244.2.9:53", Unreplied: 40, Gone: true}, targets[1]}, DNATChecked: true},
			"70 UDP entries a DNAT sent to 10.244.2.9:53 (40), 10.244.1.7:53 (30), which the ruleset no longer names (none ever saw a reply)"},
		{"one entry answered before, its Service named", &model.Census{Total: 1, StaleDNAT: []model.DNATTarget{{Target: "10.244.1.7:53", Entries: 1, Via: "10.96.0.10:53",
			Service: "kube-system/kube-dns:dns", Gone: true}}, DNATChecked: true},
			"1 UDP entry a DNAT sent to 10.244.1.7:53 (Service kube-system/kube-dns:dns, asked as 10.96.0.10:53), which the ruleset no longer names (it saw replies before its target went)"},
		{"a target still in the ruleset: not answering, not gone", &model.Census{Total: 90, StaleDNAT: targets[:1], DNATChecked: true}, ""},
		{"the ruleset not read: unknown, no verdict", &model.Census{Total: 90, StaleDNAT: targets}, ""},
		{"no census", nil, ""},
	} {
		v, ok := ruleStaleDNAT(Inputs{Sample: table(90, 90, 262144), Census: tc.cen})
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: %s", tc.name, v)
		case tc.want != "" && (!ok || !strings.Contains(v.Text(), tc.want)):
			t.Errorf("%s: %v %q, want %q", tc.name, ok, v.Text(), tc.want)
		case ok && !strings.HasPrefix(v.Entries, "-p udp --reply-src 10.244.") || ok && !strings.Contains(v.Text(), "conntrack -D "+v.Entries):
			t.Errorf("%s: the entries to drop %q are not the ones the evidence names: %s", tc.name, v.Entries, v.Text())
		}
	}
}
