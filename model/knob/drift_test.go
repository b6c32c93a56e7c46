package knob

import (
	"strings"
	"testing"
)

func TestDriftOf(t *testing.T) {
	for _, c := range []struct {
		name            string
		persisted, live map[string]string
		checked         int
		drifted         []string
	}{
		{"held", map[string]string{Max: "32768"}, map[string]string{Max: "32768"}, 1, nil},
		{"lost at boot", map[string]string{Max: "32768", Hashsize: "8192"}, map[string]string{Max: "4096", Hashsize: "8192"}, 2, []string{Max}},
		{"live unreadable: unknown, not drift", map[string]string{Max: "32768"}, map[string]string{}, 0, nil},
		{"words compare", map[string]string{"net.ipv4.ip_local_port_range": "1024 65535"}, map[string]string{"net.ipv4.ip_local_port_range": "1024\t65535"}, 1, nil},
		{"hashsize as the kernel rounds it", map[string]string{Hashsize: "8000"}, map[string]string{Hashsize: "8192"}, 1, nil},
		{"hashsize lost", map[string]string{Hashsize: "65536"}, map[string]string{Hashsize: "8192"}, 1, []string{Hashsize}},
		{"nothing persisted", nil, map[string]string{Max: "4096"}, 0, nil},
	} {
		d := DriftOf(c.persisted, c.live)
		var got []string
		for _, x := range d.Drifted {
			got = append(got, x.Knob)
		}
		if len(d.Checked) != c.checked || strings.Join(got, ",") != strings.Join(c.drifted, ",") {
			t.Errorf("%s: checked %v drifted %v, want %d checked, %v drifted", c.name, d.Checked, got, c.checked, c.drifted)
		}
	}
}

func TestDriftSays(t *testing.T) {
	d := Drift{Knob: Max, Persisted: "32768", Live: "4096", Writers: []string{"/etc/sysctl.d/99-zz.conf (4096)", "kube-proxy\x1b[2J"}}
	want := "persisted nf_conntrack_max 32768, live 4096 — the persisted value did not apply (reboot? module loaded late? another writer?); written after it by /etc/sysctl.d/99-zz.conf (4096), kube-proxy"
	if got := d.Say(); !strings.HasPrefix(got, want) || strings.Contains(got, "\x1b") {
		t.Errorf("Say = %q, want %q (sanitised)", got, want)
	}
}
