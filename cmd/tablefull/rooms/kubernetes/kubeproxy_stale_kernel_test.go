package kubernetes

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// kubeProxyModes are kube-proxy's rules for the Service
// kube-system/kube-dns:dns (10.96.0.10:53/udp) with one endpoint, in each
// of its nftables-backed modes, written in its own formats
// (pkg/proxy/iptables: the KUBE-SERVICES rule's "cluster IP" comment, a
// KUBE-SEP chain's comment and DNAT; pkg/proxy/nftables: the service-ips
// map, service- and endpoint- chains). to moves the Service to the
// endpoint at ip as kube-proxy does: iptables mode replaces its chains,
// nftables mode flushes the old endpoint chain (deleted later) and adds
// the new one.
var kubeProxyModes = []struct {
	name  string
	first func(ns *netns.NS, ip string) error
	to    func(ns *netns.NS, old, ip string) error
}{
	{"iptables-nft", iptablesEndpoint, func(ns *netns.NS, _, ip string) error { return iptablesEndpoint(ns, ip) }},
	{"nftables", func(ns *netns.NS, ip string) error {
		return ns.Nft(`table ip kube-proxy {
	comment "rules for kube-proxy"
	map service-ips {
		type ipv4_addr . inet_proto . inet_service : verdict
	}
	chain mark-for-masquerade { mark set mark or 0x4000; }
	chain services { ip daddr . meta l4proto . th dport vmap @service-ips; }
	chain nat-output { type nat hook output priority -100; policy accept; jump services; }
}
` + nftEndpoint(ip))
	}, func(ns *netns.NS, old, ip string) error {
		return ns.Nft("flush chain ip kube-proxy " + endpointChain(old) + "\n" + nftEndpoint(ip))
	}},
}

// endpointChain is kube-proxy's nftables chain of the endpoint ip:53.
func endpointChain(ip string) string {
	return "endpoint-" + map[string]string{"10.244.1.7": "5OJB2KTY", "10.244.1.8": "QX3ZK2MA"}[ip] + "-kube-system/kube-dns/udp/dns__" + ip + "/53"
}

// nftEndpoint adds the endpoint's chain and points the Service at it.
func nftEndpoint(ip string) string {
	return "add chain ip kube-proxy " + endpointChain(ip) + "\n" +
		"add rule ip kube-proxy " + endpointChain(ip) + " ip saddr " + ip + " jump mark-for-masquerade\n" +
		"add rule ip kube-proxy " + endpointChain(ip) + " meta l4proto udp dnat to " + ip + ":53\n" +
		"add chain ip kube-proxy service-ULMVA6XW-kube-system/kube-dns/udp/dns\n" +
		"flush chain ip kube-proxy service-ULMVA6XW-kube-system/kube-dns/udp/dns\n" +
		"add rule ip kube-proxy service-ULMVA6XW-kube-system/kube-dns/udp/dns numgen random mod 1 vmap { 0 : goto " + endpointChain(ip) + " }\n" +
		"flush map ip kube-proxy service-ips\n" +
		"add element ip kube-proxy service-ips { 10.96.0.10 . udp . 53 : goto service-ULMVA6XW-kube-system/kube-dns/udp/dns }\n"
}

// iptablesEndpoint writes kube-proxy's iptables-mode nat rules with the
// one endpoint ip, as its iptables-restore does (the whole table).
func iptablesEndpoint(ns *netns.NS, ip string) error {
	sep := "KUBE-SEP-" + map[string]string{"10.244.1.7": "IT2ZTR26TO4XFPTO", "10.244.1.8": "ZXMNUKOKXUTL2MK2"}[ip]
	return restoreIn(ns, "iptables-nft-restore", kubeProxyNAT("10.96.0.10", sep, ip, ip+":53"))
}

// kubeProxyNAT is kube-proxy's iptables-mode nat table for
// kube-system/kube-dns:dns at vip with one endpoint: its KUBE-SEP chain
// sep, the endpoint's address ip and where its DNAT sends (dest).
func kubeProxyNAT(vip, sep, ip, dest string) string {
	return `*nat
:KUBE-SERVICES - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SVC-TCOU7JCQXEZGVUNU - [0:0]
:` + sep + ` - [0:0]
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-SERVICES -m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp -p udp -d ` + vip + ` --dport 53 -j KUBE-SVC-TCOU7JCQXEZGVUNU
-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "kube-system/kube-dns:dns -> ` + dest + `" -j ` + sep + `
-A ` + sep + ` -m comment --comment kube-system/kube-dns:dns -s ` + ip + ` -j KUBE-MARK-MASQ
-A ` + sep + ` -m comment --comment kube-system/kube-dns:dns -m udp -p udp -j DNAT --to-destination ` + dest + `
COMMIT
`
}

// restoreIn loads rules into ns with tool (iptables-nft-restore,
// ip6tables-nft-restore).
func restoreIn(ns *netns.NS, tool, rules string) error {
	cmd := ns.Command(tool)
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s in %s: %w: %s", tool, ns.Name, err, out)
	}
	return nil
}

// TestStaleUDPServiceKubeProxy: a client with one long-lived UDP socket
// asks the Service kube-system/kube-dns:dns (10.96.0.10:53) every 200 ms
// and dnsmasq A answers through kube-proxy's DNAT; A goes, the Service
// moves to B as kube-proxy moves it, and nobody deletes the one entry,
// answered while A lived and refreshed by every send. In both of
// kube-proxy's nftables-backed modes: the census names the gone backend
// and the Service (STALE DNAT, one entry), names the Service's address
// among the top destinations; the console, its census taken, says it
// within two intervals, and deleting what it names from its entries
// view (E, D, y) brings the client's answers back, from B, within 5 s.
func TestStaleUDPServiceKubeProxy(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64})
	clitest.NeedKernel(t, "conntrack", "dnsmasq", "iptables-nft-restore")
	for _, mode := range kubeProxyModes {
		t.Run(mode.name, func(t *testing.T) {
			ns := clitest.LabNS(t)
			dir := t.TempDir()
			for _, a := range []string{"10.96.0.10", "10.244.1.7", "10.244.1.8"} {
				if _, err := ns.Output("ip", "addr", "add", a+"/32", "dev", "lo"); err != nil {
					t.Fatal(err)
				}
			}
			backendA := serveDNS(t, ns, dir, "10.244.1.7", "10.1.1.1")
			serveDNS(t, ns, dir, "10.244.1.8", "10.2.2.2")
			if err := mode.first(ns, "10.244.1.7"); err != nil {
				t.Fatal(err)
			}
			c := askForever(t, ns, "10.96.0.10:53")
			c.WaitFor(t, "10.1.1.1", 5*time.Second)
			backendA.Process.Kill()
			backendA.Wait()
			if err := mode.to(ns, "10.244.1.7", "10.244.1.8"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			if n := c.from("10.2.2.2"); n != 0 {
				t.Fatalf("B answered %d times before anything was deleted: the test would not tell", n)
			}
			cen := clitest.CensusIn(t, ns)
			v := staleDNATOf(cen)
			if v.Entries != "-p udp --reply-src 10.244.1.7" || !strings.Contains(v.Text(), "1 UDP entry a DNAT sent to 10.244.1.7:53 (Service kube-system/kube-dns:dns, asked as 10.96.0.10:53)") {
				t.Fatalf("STALE DNAT: %q %q; the census's targets %+v", v.Entries, v.Text(), cen.StaleDNAT)
			}
			if name := cen.DestServices["10.96.0.10"]; name != "kube-system/kube-dns" {
				t.Errorf("the top destination 10.96.0.10 is named %q, want the Service (top %v)", name, cen.TopDests)
			}
			fixFromTheConsole(t, ns, dir, v.Entries)
			c.WaitFor(t, "10.2.2.2", 5*time.Second)
		})
	}
}

// staleDNATOf is the STALE DNAT verdict of a census taken of a table far
// from its cap (none: the zero verdict).
func staleDNATOf(cen model.Census) verdict.Verdict {
	c := model.Conntrack{Status: model.TableTracked, Count: uint64(cen.Total), Peak: uint64(cen.Total), Max: 262144, Buckets: 262144}
	for _, v := range diagnose.Judge(diagnose.Inputs{Sample: model.Sample{Time: cen.At, Interval: time.Second, Conntrack: c}, Census: &cen}) {
		if v.Kind == verdict.StaleDNAT {
			return v
		}
	}
	return verdict.Verdict{}
}

// dnsQuery asks for x.svc.test, type A.
var dnsQuery = []byte{0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 'x', 3, 's', 'v', 'c', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1}

// serveDNS runs dnsmasq on ip:53 in ns, answering every name under
// svc.test with answer; it ends with the test.
func serveDNS(t *testing.T, ns *netns.NS, dir, ip, answer string) *exec.Cmd {
	t.Helper()
	cmd := ns.Command("dnsmasq", "--keep-in-foreground", "--port=53", "--listen-address="+ip, "--bind-interfaces",
		"--no-resolv", "--no-hosts", "--user=root", "--pid-file="+filepath.Join(dir, ip+".pid"), "--address=/svc.test/"+answer)
	clitest.StartUntilEnd(t, cmd)
	return cmd
}

// asker is a client that keeps one UDP socket and asks a DNS server for
// svc.test every 200 ms, counting the answers by the address answered.
type asker struct {
	answers map[string]*atomic.Int64
}

// from is how many answers said addr.
func (a *asker) from(addr string) int64 { return a.answers[addr].Load() }

// waitFor waits until an answer says addr.
func (a *asker) WaitFor(t *testing.T, addr string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); a.from(addr) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no answer %s within %s", addr, d)
		}
	}
}

// askForever starts the client in ns; it stops with the test.
func askForever(t *testing.T, ns *netns.NS, server string) *asker {
	t.Helper()
	var conn net.PacketConn
	if err := ns.Do(func() (err error) { conn, err = net.ListenPacket("udp", "0.0.0.0:0"); return err }); err != nil {
		t.Fatal(err)
	}
	to, _ := net.ResolveUDPAddr("udp", server)
	a := &asker{answers: map[string]*atomic.Int64{"10.1.1.1": {}, "10.2.2.2": {}}}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); conn.Close() })
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
				conn.WriteTo(dnsQuery, to)
			}
		}
	}()
	go func() {
		buf := make([]byte, 512)
		for {
			n, _, err := conn.ReadFrom(buf)
			if err != nil {
				select {
				case <-stop:
					return
				default:
					continue // an ICMP error from the gone backend
				}
			}
			if n >= 4 && n > len(dnsQuery) {
				ip := net.IP(buf[n-4 : n]).String()
				if c := a.answers[ip]; c != nil {
					c.Add(1)
				}
			}
		}
	}()
	return a
}

// fixFromTheConsole runs the console in ns as an operator would: c takes
// a census, STALE DNAT names the Service within two intervals of it, E
// opens the entries view on what it names (filter), D asks and y
// deletes them.
func fixFromTheConsole(t *testing.T, ns *netns.NS, state, filter string) {
	t.Helper()
	exe, _ := os.Executable()
	s := clitest.StartTmuxArgv(t, 200, 50, []string{"ip", "netns", "exec", ns.Name, "env", "TABLEFULL_AS_MAIN=1", exe, "--interval", "500ms", "--state-dir", state})
	s.WaitFor("LIVE")
	s.Keys("c")
	s.WaitWithin(2*time.Second, "STALE DNAT", "kube-system/kube-dns:dns")
	s.Keys("E")
	s.WaitFor("entries 1 match "+filter, "the entries STALE DNAT names")
	s.Keys("D")
	s.WaitFor("delete what " + filter + " matches")
	s.Keys("y")
	s.WaitFor("deleted 1 (")
}
