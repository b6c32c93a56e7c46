package incidents

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
)

// TestHashChainsOfEveryNamespace: three namespaces of 6,000 UDP entries
// each over 512 buckets. Alone, one namespace's chains average 23 deep,
// under the 50 the kernel checks an insert against at least; but every
// namespace hashes into the same table, so the third's inserts meet the
// others' entries and fail as chain-too-long, counted in that
// namespace's statistics, not the host's. The host's HASH CHAINS names
// the namespace, the sum of every namespace's entries, and sizes the
// hashsize for that sum.
func TestHashChainsOfEveryNamespace(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 8192)
	clitest.SetBuckets(t, 512)
	const each = 6000
	to, from := netip.MustParseAddrPort("127.0.0.1:9"), netip.MustParseAddr("127.0.0.1")
	for range 2 {
		clitest.FloodService(t, clitest.LabNS(t), to, each, from)
	}
	ns := clitest.LabNS(t)
	record, rec := clitest.StartRecording(t, nil)
	time.Sleep(time.Second)
	clitest.FloodService(t, ns, to, each, from)
	time.Sleep(1500 * time.Millisecond)
	out, err := ns.Output("conntrack", "-S")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "chaintoolong=") || strings.Count(out, "chaintoolong=0 ") == strings.Count(out, "chaintoolong=") {
		t.Fatalf("the kernel counted no chain-too-long insert in the third namespace:\n%s", out)
	}
	samples, said := clitest.JudgedRecording(t, record, rec)
	others, _ := model.OtherEntries(samples[len(samples)-1])
	all := strings.Join(said, "\n")
	if others < 3*each*2/3 || !strings.Contains(all, "HASH CHAINS") || !strings.Contains(all, " in netns "+ns.Name) ||
		!strings.Contains(all, "entries of every namespace: this one's ") || (!strings.Contains(all, "raise the hashsize to 16,384 buckets") && !strings.Contains(all, "raise the hashsize to 32,768 buckets")) {
		t.Errorf("the others hold %d entries; HASH CHAINS does not name the namespace, the sum of every namespace and its hashsize:\n%s", others, all)
	}
}
