package incidents

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/ctnetlink"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestSynSentHoldAsTheModelSays: a SYN whose answer is dropped before
// conntrack sees it is retransmitted at 1 s and 3 s. An older kernel
// renews the entry's SYN_SENT timeout on each retransmit, so just after
// the second its entry has the whole hold left; a later kernel counts
// from the first SYN. The model's rule for the running release (which
// the unanswered class's hold follows) says what this kernel did. The
// boot test runs it on Debian 12's 6.1 too.
func TestSynSentHoldAsTheModelSays(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	const hold = 30
	// written from a thread in the namespace: the guest has no sysctl(8)
	if err := ns.Do(func() error {
		return os.WriteFile("/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_syn_sent", []byte(strconv.Itoa(hold)), 0o644)
	}); err != nil {
		t.Fatal(err)
	}
	dropSynAcks(t, ns, 18096)
	nstest.Serve(t, ns, "127.0.0.1:18096", nil)
	go ns.Do(func() error {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:18096", 6*time.Second); err == nil {
			c.Close()
		}
		return nil
	})
	time.Sleep(3500 * time.Millisecond) // past the retransmit at 3 s
	left := -1
	if err := ns.Do(func() error {
		return ctnetlink.Dump(2*time.Second, func(f model.Flow, _ bool) {
			if f.Proto == 6 && f.DstPort == 18096 {
				left = int(f.Timeout)
			}
		})
	}); err != nil || left < 0 {
		t.Fatalf("the unanswered entry: %d s left, %v", left, err)
	}
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	release := strings.TrimSpace(string(b))
	renewed := left >= hold-1
	t.Logf("kernel %s: %d s of %d left 3.5 s after the first SYN: renewed by the retransmits: %v; tablefull says %v", release, left, hold, renewed, model.SynSentRenewed(release))
	if renewed != model.SynSentRenewed(release) {
		t.Errorf("on %s the retransmits renewed the hold: %v; tablefull's rule for it says %v", release, renewed, model.SynSentRenewed(release))
	}
}
