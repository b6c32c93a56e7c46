package kubernetes

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestIPv6ServicesNamed: a client with one UDP socket sends to the IPv6
// Service kube-system/kube-dns:dns ([fd00:10:96::a]:53) every 200 ms
// through kube-proxy's DNAT, in each of its nftables-backed modes. The
// census names the Service among the top destinations; when kube-proxy
// moves the Service to another endpoint, STALE DNAT names the gone one,
// the Service and the address its client asked for.
func TestIPv6ServicesNamed(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64})
	clitest.NeedKernel(t, "conntrack", "ip6tables-nft-restore")
	for _, mode := range kubeProxyIPv6Modes {
		t.Run(mode.name, func(t *testing.T) {
			ns := clitest.LabNS(t)
			for _, a := range []string{"fd00:10:96::a", "fd00:10:244:1::7", "fd00:10:244:1::8"} {
				if out, err := ns.Output("ip", "-6", "addr", "add", a+"/128", "dev", "lo", "nodad"); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
			}
			if err := mode.write(ns, "fd00:10:244:1::7"); err != nil {
				t.Fatal(err)
			}
			sendForever(t, ns, "[fd00:10:96::a]:53")
			time.Sleep(time.Second)
			cen := clitest.CensusIn(t, ns)
			if name := cen.DestServices["fd00:10:96::a"]; name != "kube-system/kube-dns" {
				t.Errorf("the top destination fd00:10:96::a is named %q, want the Service (top %v, named %v)", name, cen.TopDests, cen.DestServices)
			}
			if err := mode.write(ns, "fd00:10:244:1::8"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			cen = clitest.CensusIn(t, ns)
			if v := staleDNATOf(cen); !strings.Contains(v.Text(), "a DNAT sent to [fd00:10:244:1::7]:53 (Service kube-system/kube-dns:dns, asked as [fd00:10:96::a]:53)") {
				t.Errorf("STALE DNAT: %q; the census's targets %+v", v.Text(), cen.StaleDNAT)
			}
		})
	}
}

// kubeProxyIPv6Modes are kube-proxy's rules for the IPv6 Service
// kube-system/kube-dns:dns ([fd00:10:96::a]:53/udp) with one endpoint at
// ip, in each of its nftables-backed modes and formats: nftables mode's
// ip6 table (an endpoint chain's name holds its address with dots for
// colons), iptables mode through ip6tables-nft-restore (a /128, a
// bracketed DNAT destination). Each call writes the whole of the rules
// anew, the endpoint moved to ip.
var kubeProxyIPv6Modes = []struct {
	name  string
	write func(ns *netns.NS, ip string) error
}{
	{"nftables", func(ns *netns.NS, ip string) error {
		chain := "endpoint-Y7KGAG6I-kube-system/kube-dns/udp/dns__" + strings.ReplaceAll(ip, ":", ".") + "/53"
		return ns.Nft(`table ip6 kube-proxy
delete table ip6 kube-proxy
table ip6 kube-proxy {
	comment "rules for kube-proxy"
	map service-ips {
		type ipv6_addr . inet_proto . inet_service : verdict
	}
	chain mark-for-masquerade { mark set mark or 0x4000; }
	chain ` + chain + ` {
		ip6 saddr ` + ip + ` jump mark-for-masquerade
		meta l4proto udp dnat to [` + ip + `]:53
	}
	chain service-FY5PMXPG-kube-system/kube-dns/udp/dns {
		numgen random mod 1 vmap { 0 : goto ` + chain + ` }
	}
	chain services { ip6 daddr . meta l4proto . th dport vmap @service-ips; }
	chain nat-output { type nat hook output priority -100; policy accept; jump services; }
}
add element ip6 kube-proxy service-ips { fd00:10:96::a . udp . 53 : goto service-FY5PMXPG-kube-system/kube-dns/udp/dns }
`)
	}},
	{"ip6tables-nft", func(ns *netns.NS, ip string) error {
		sep := "KUBE-SEP-" + map[string]string{"fd00:10:244:1::7": "XG3NYPO6PYGJTJAR", "fd00:10:244:1::8": "T5DZVWIKKJU2OVEX"}[ip]
		return restoreIn(ns, "ip6tables-nft-restore", kubeProxyNAT("fd00:10:96::a", sep, ip, "["+ip+"]:53"))
	}},
}

// sendForever sends a DNS query from one UDP socket in ns to server every
// 200 ms until the test ends; nothing need answer.
func sendForever(t *testing.T, ns *netns.NS, server string) {
	t.Helper()
	var conn net.PacketConn
	if err := ns.Do(func() (err error) { conn, err = net.ListenPacket("udp6", "[::]:0"); return err }); err != nil {
		t.Fatal(err)
	}
	to, err := net.ResolveUDPAddr("udp6", server)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); conn.Close() })
	go func() {
		for {
			conn.WriteTo(dnsQuery, to)
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}
