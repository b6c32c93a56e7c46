package kubernetes

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
)

// kubeProxyMasquerade adds kube-proxy's masquerade of Service traffic to
// the rules kubeProxyModes wrote, as it writes it with --masquerade-all:
// the Service's cluster IP marked for masquerade, and every marked flow
// masqueraded fully-random (pkg/proxy/nftables setupNFTables and the
// service chain's rule; pkg/proxy/iptables KUBE-POSTROUTING and the
// KUBE-MARK-MASQ rule of the Service's chain).
var kubeProxyMasquerade = map[string]func(ns *netns.NS) error{
	"iptables-nft": func(ns *netns.NS) error {
		cmd := ns.Command("iptables-nft-restore", "--noflush")
		cmd.Stdin = strings.NewReader(`*nat
:KUBE-POSTROUTING - [0:0]
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-I KUBE-SVC-TCOU7JCQXEZGVUNU -d 10.96.0.10/32 -p udp -m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp --dport 53 -j KUBE-MARK-MASQ
COMMIT
`)
		if out, err := cmd.CombinedOutput(); err != nil {
			return &exitError{err, string(out)}
		}
		return nil
	},
	"nftables": func(ns *netns.NS) error {
		return ns.Nft(`add chain ip kube-proxy masquerading
add rule ip kube-proxy masquerading mark and 0x4000 == 0 return
add rule ip kube-proxy masquerading mark set mark xor 0x4000
add rule ip kube-proxy masquerading masquerade fully-random
add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority srcnat; policy accept; }
add rule ip kube-proxy nat-postrouting jump masquerading
insert rule ip kube-proxy service-ULMVA6XW-kube-system/kube-dns/udp/dns ip daddr 10.96.0.10 udp dport 53 jump mark-for-masquerade
`)
	},
}

// exitError is a command's failure with what it printed.
type exitError struct {
	err error
	out string
}

func (e *exitError) Error() string { return e.err.Error() + ": " + e.out }

// TestNATPortsOfAServiceKubeProxy: kube-proxy's masquerade (fully-random,
// no port range: 64,512 source ports) runs out when more flows than that
// go to one endpoint of kube-system/kube-dns:dns. In both of kube-proxy's
// nftables-backed modes, a recording of the namespace says NAT PORTS,
// names the masquerade rule and the census's busiest destination by the
// Service.
func TestNATPortsOfAServiceKubeProxy(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "iptables-nft-restore")
	for _, mode := range kubeProxyModes {
		t.Run(mode.name, func(t *testing.T) {
			ns := clitest.LabNS(t)
			for _, a := range []string{"10.96.0.10", "10.244.1.7", "10.0.0.1", "10.0.0.2", "10.0.0.3"} {
				if _, err := ns.Output("ip", "addr", "add", a+"/32", "dev", "lo"); err != nil {
					t.Fatal(err)
				}
			}
			if err := mode.first(ns, "10.244.1.7"); err != nil {
				t.Fatal(err)
			}
			if err := kubeProxyMasquerade[mode.name](ns); err != nil {
				t.Fatal(err)
			}
			record, rec := clitest.StartRecording(t, ns)
			time.Sleep(time.Second)
			clitest.FloodService(t, ns, netip.MustParseAddrPort("10.96.0.10:53"), 70000, netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"))
			// and more flows for 3 s, every one refused: the census the drops
			// start ends while they go on
			for range 6 {
				clitest.FloodService(t, ns, netip.MustParseAddrPort("10.96.0.10:53"), 500, netip.MustParseAddr("10.0.0.3"))
				time.Sleep(500 * time.Millisecond)
			}
			_, said := clitest.JudgedRecording(t, record, rec)
			all := strings.Join(said, "\n")
			rule := "masquerade to :1024-65535 fully-random in " + map[string]string{"iptables-nft": "ip nat KUBE-POSTROUTING", "nftables": "ip kube-proxy masquerading"}[mode.name]
			if !strings.Contains(all, "NAT PORTS") || !strings.Contains(all, rule) || strings.Contains(all, "use random-fully") ||
				!strings.Contains(all, "busiest destination 10.96.0.10 (Service kube-system/kube-dns)") {
				t.Errorf("no NAT PORTS naming %q and the Service, without proposing the random-fully it has, in:\n%s", rule, all)
			}
		})
	}
}
