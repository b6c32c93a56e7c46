package ruleset

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/model"
)

// TestParseServices: both of kube-proxy's nftables-backed modes name
// their Services — nftables mode in its service-ips map and endpoint
// chains, iptables mode in the comments iptables-save prints — by the
// Service's address and by each endpoint. The fixtures are what nft and
// iptables-save print for rules written in kube-proxy's own formats on
// this kernel.
func TestParseServices(t *testing.T) {
	nft, saved := fixture(t, "kube-proxy-nftables.txt"), fixture(t, "kube-proxy-iptables-save.txt")
	nft6, saved6 := fixture(t, "kube-proxy-nftables-ipv6.txt"), fixture(t, "kube-proxy-ip6tables-save.txt")
	for _, tc := range []struct {
		name     string
		nft, ipt []byte
		want     map[string]string
	}{
		{"nftables mode", nft, nil, map[string]string{"udp 10.96.0.10:53": "kube-system/kube-dns:dns", "udp 10.244.1.8:53": "kube-system/kube-dns:dns"}},
		{"iptables mode", nil, saved, map[string]string{"udp 10.96.0.10:53": "kube-system/kube-dns:dns", "udp 10.244.1.7:53": "kube-system/kube-dns:dns"}},
		// IPv6: nft prints the ip6 table's addresses as they are, kube-proxy
		// writes an endpoint chain's with dots for colons, ip6tables-save
		// a /128 and a bracketed destination.
		{"nftables mode, IPv6", nft6, nil, map[string]string{"udp [fd00:10:96::a]:53": "kube-system/kube-dns:dns", "udp [fd00:10:244:1::8]:53": "kube-system/kube-dns:dns"}},
		{"iptables mode, IPv6", nil, saved6, map[string]string{"udp [fd00:10:96::a]:53": "kube-system/kube-dns:dns", "udp [fd00:10:244:1::7]:53": "kube-system/kube-dns:dns"}},
	} {
		got := ParseServices(tc.nft, tc.ipt)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s is %q, want %q", tc.name, k, got[k], v)
			}
		}
	}
	s := ParseServices(nft, saved)
	if s.ByAddr("10.96.0.10") != "kube-system/kube-dns" || s.ByAddr("10.244.1.8") != "kube-system/kube-dns" || s.ByAddr("10.9.9.9") != "" || s.ByAddr("nonsense") != "" {
		t.Errorf("ByAddr: %q %q", s.ByAddr("10.96.0.10"), s.ByAddr("10.244.1.8"))
	}
	s6 := ParseServices(nft6, saved6)
	if s6.ByAddr("fd00:10:96::a") != "kube-system/kube-dns" || s6.ByAddr("fd00:10:244:1::8") != "kube-system/kube-dns" {
		t.Errorf("ByAddr, IPv6: %q %q", s6.ByAddr("fd00:10:96::a"), s6.ByAddr("fd00:10:244:1::8"))
	}
	if got := s6.Of(model.DNATTarget{Target: "[fd00:10:244:1::9]:53", Via: "[fd00:10:96::a]:53"}); got != "kube-system/kube-dns:dns" {
		t.Errorf("Of, IPv6: %q", got)
	}
	gone := model.DNATTarget{Target: "10.244.1.9:53", Via: "10.96.0.10:53"} // a target no rule names: by the address asked for
	if s.Of(gone) != "kube-system/kube-dns:dns" || s.Of(model.DNATTarget{Target: "10.1.1.1:53"}) != "" {
		t.Errorf("Of: %q", s.Of(gone))
	}
	for _, hostile := range []string{
		`-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment "evil name cluster IP" -m udp --dport 53 -j X`, // not NS/NAME
		`-A KUBE-SEP-X -p udp -m comment --comment "a/b" -j DNAT --to-destination nonsense`,
		`-A KUBE-SEP-X -p udp -m comment --comment "a/b`,
	} {
		if got := ParseServices(nil, []byte(hostile)); len(got) != 0 {
			t.Errorf("%q read as %v", hostile, got)
		}
	}
}

// TestNamesLeavesOutChainNames: an endpoint's address in the name of
// kube-proxy's endpoint chain, flushed but not yet deleted when the
// endpoint goes, does not name it: only a rule's dnat does.
func TestNamesLeavesOutChainNames(t *testing.T) {
	listing := []byte("chain endpoint-5OJB2KTY-kube-system/kube-dns/udp/dns__10.244.1.7/53 {\n}\n" +
		"chain service-X { numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-kube-system/kube-dns/udp/dns__10.244.1.7/53 } }\n" +
		"chain endpoint-AAAAAAAA-kube-system/kube-dns/udp/dns__10.244.1.8/53 {\n meta l4proto udp dnat to 10.244.1.8:53\n}\n")
	if NamedIn(listing).Names(netip.MustParseAddr("10.244.1.7")) {
		t.Error("a flushed endpoint chain's name named its address")
	}
	if !NamedIn(listing).Names(netip.MustParseAddr("10.244.1.8")) {
		t.Error("a dnat to the address did not name it")
	}
}

// fixture is the file of testdata named name.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
