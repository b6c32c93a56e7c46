package incidents

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestNATPortsPerPair: one client through a source NAT of two addresses
// and 8 ports to one destination gets 8 flows, not 16 — the kernel maps
// a source–destination pair to one address and varies only the port —
// and NAT PORTS says that capacity, read from the same ruleset, with the
// fix for that pair and no "add egress addresses" as its remedy.
func TestNATPortsPerPair(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: 64}) // its own namespace's few entries
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	onLoopback(t, ns, "10.0.0.1", "10.0.0.2", "10.0.0.5", "10.0.0.9")
	if err := ns.Nft(`table ip tft-pair {
	chain post { type nat hook postrouting priority srcnat; oif "lo" udp dport 53 snat to 10.0.0.1-10.0.0.2:20000-20007; }
}`); err != nil {
		t.Fatal(err)
	}
	record, rec := clitest.StartRecording(t, ns)
	time.Sleep(time.Second)
	for range 4 { // 40 flows from one client to one destination, again while recorded
		clitest.FloodService(t, ns, netip.MustParseAddrPort("10.0.0.5:53"), 40, netip.MustParseAddr("10.0.0.9"))
		time.Sleep(500 * time.Millisecond)
	}
	out, err := ns.Output("conntrack", "-L", "-p", "udp", "--dport", "53")
	if err != nil {
		t.Fatal(err)
	}
	admitted := strings.Count(out, "dport=53")
	samples, said := clitest.JudgedRecording(t, record, rec)
	var pool model.NATPool
	for _, s := range samples {
		if p, ok := s.NAT.Narrowest(); ok {
			pool = p
		}
	}
	if uint64(admitted) != pool.Tuples() || admitted != 8 {
		t.Errorf("the kernel admitted %d flows of one pair; the pool %q says %d", admitted, pool, pool.Tuples())
	}
	all := strings.Join(said, "\n")
	if !strings.Contains(all, "(8 ports for each source–destination pair; its 2 addresses take other pairs, not more of one)") ||
		strings.Contains(all, "add egress addresses") || !strings.Contains(all, "widen its ports") {
		t.Errorf("NAT PORTS does not say the pair's 8 ports and its fix:\n%s", all)
	}
}
