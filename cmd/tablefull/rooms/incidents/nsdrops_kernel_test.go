package incidents

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestNamespaceDropsByCauseOnTheKernel: two namespaces under a cap of
// 4,096 — one at 60 % whose drops are its source NAT's, out of its 8
// ports, and one at 94 % that drops nothing. Neither is TABLE FULL, on
// the host's console (its recording, judged) or to the alert (the
// exporter's full-table drops stay 0); the NAT's drops are said for
// what they are, an insert failure in that namespace.
//
// It claims the cap of 4,096 beside the tests that keep it (the classes
// of that cap): its tables are its namespaces', its drops theirs. Quiet
// not for a pace of its own but to take the cap's turn with those
// classes, which wait for the heavy tests: one turn of the cap, not two.
func TestNamespaceDropsByCauseOnTheKernel(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 4096, Quiet: true})
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 4096)
	nat, web := clitest.LabNS(t), clitest.LabNS(t)
	for _, ns := range []*netns.NS{nat, web} {
		onLoopback(t, ns, "10.0.0.5", "10.0.0.9")
	}
	if err := nat.Nft(`table ip tft-nsnat {
	chain post { type nat hook postrouting priority srcnat; oif "lo" udp dport 53 snat to 127.0.0.1:20000-20007; }
}`); err != nil {
		t.Fatal(err)
	}
	client, sink := netip.MustParseAddr("10.0.0.9"), netip.MustParseAddrPort("10.0.0.5:9")
	fill := func() { // UDP flows held 30 s each: 60 % and 94 % of the cap
		clitest.FloodService(t, nat, sink, 2458, client)
		clitest.FloodService(t, web, sink, 3850, client)
	}
	fill()
	addr, _ := clitest.StartExporter(t, "", "1s")
	record, rec := clitest.StartRecording(t, nil)
	for i := range 50 { // 25 s: the NAT out of ports again and again, the fills kept
		clitest.FloodService(t, nat, netip.MustParseAddrPort("10.0.0.5:53"), 40, client)
		if i == 25 {
			fill()
		}
		time.Sleep(500 * time.Millisecond)
	}
	metrics := clitest.ScrapeText(t, "http://"+addr+"/metrics")
	_, said := clitest.JudgedRecording(t, record, rec)
	all := strings.Join(said, "\n")
	if strings.Contains(all, string(verdict.TableFull)) {
		t.Errorf("TABLE FULL from a NAT's drops at 60 %% or a table at 94 %% with none:\n%s", all)
	}
	if !strings.Contains(all, "in netns "+nat.Name) || !strings.Contains(all, "packets dropped on inserting their entry") {
		t.Errorf("the NAT's drops in %s are not said as insert drops:\n%s", nat.Name, all)
	}
	for _, ns := range []*netns.NS{nat, web} {
		full := regexp.MustCompile(`tablefull_netns_conntrack_drops_total\{[^}]*netns="` + ns.Name + `"\} ([0-9.e+]+)`).FindStringSubmatch(metrics)
		if full != nil && full[1] != "0" {
			t.Errorf("%s: the exporter serves %s full-table drops, which the alert pages for", ns.Name, full[1])
		}
	}
	if !regexp.MustCompile(`tablefull_netns_conntrack_insert_drops_total\{[^}]*netns="` + nat.Name + `"\} [1-9]`).MatchString(metrics) {
		t.Errorf("the exporter does not serve %s's insert drops:\n%s", nat.Name, clitest.GrepLines(metrics, "netns_conntrack"))
	}
}
