package ruleset

import (
	"net/netip"
	"testing"
)

func TestNames(t *testing.T) {
	listing := []byte(`table ip kube-proxy {
	map service-ips { type ipv4_addr . inet_proto . inet_service : verdict
		elements = { 10.96.0.10 . udp . 53 : goto service-dns } }
	chain endpoint-A { meta l4proto udp dnat to 10.244.1.7:53 }
	chain out { udp dport 53 dnat to numgen random mod 2 map { 0 : 127.0.0.1, 1 : 127.0.0.2 } : 5353 }
	chain range { dnat to 192.168.1.10-192.168.1.20 }
	chain pods { ip saddr 10.244.0.0/16 masquerade }
}
table ip6 v6 { chain o { dnat ip6 to [fd00::1]:53 } }`)
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"10.244.1.7", true}, {"10.244.1.70", false}, {"0.244.1.7", false}, {"10.244.1.", false},
		{"127.0.0.2", true}, {"127.0.0.3", false}, {"10.96.0.10", true}, {"10.96.0.1", false},
		{"192.168.1.10", true}, {"192.168.1.20", true}, {"192.168.1.15", true}, {"192.168.1.21", false},
		{"fd00::1", true}, {"fd00::", false}, {"d00::1", false},
	} {
		a, err := netip.ParseAddr(tc.addr)
		if err != nil {
			if tc.want {
				t.Fatal(err)
			}
			continue
		}
		if got := NamedIn(listing).Names(a); got != tc.want {
			t.Errorf("Names(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}
