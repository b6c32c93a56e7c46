package incidents

import (
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestClassStandingEstablished: connections held open fill the table
// with no new entries at all: tcp-open first, its hold the ESTABLISHED
// timeout.
func TestClassStandingEstablished(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: 2048, Quiet: true}) // in the turn of the other classes of that cap (its entries are held open: it needs no pace)
	clitest.NeedKernel(t, "conntrack")
	clitest.LowerMax(t, 2048)
	ns := clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_established", 3600)
	clients := nstest.HoldOpen(t, ns, "127.0.0.1:18094", 1400)
	feed := clitest.StartClassFeed(t, ns, 500*time.Millisecond)
	feed.Until(t, 20*time.Second, func(f diagnose.Frame) bool { return nearCap(f) && f.Fill.Counted })
	f, per, k := feed.AgainstKernel(t, ns, 3*time.Second)
	checkClass(t, f, per, model.ClassTCPOpen, k["tcp"], 3600)
	if top, _ := f.Fill.Top(); top.Entries < 1400 {
		t.Errorf("tcp-open stands for %d entries, want the 1,400 held open", top.Entries)
	}
	// Made under a 3,600 s hold, then the hold raised to 5 days: each
	// quiet entry has ~3,600 s left of 432,000, as if idle for days. A
	// packet on 100 of them gives those the new hold again.
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_established", 432000)
	for _, c := range clients[:100] {
		c.Write([]byte("x"))
	}
	time.Sleep(200 * time.Millisecond)
	if c := clitest.CensusIn(t, ns); !c.IdleCounted || c.IdleOpen < 1250 || c.IdleOpen > 1300 {
		t.Errorf("census: %d idle over an hour (counted %v), want the 1,300 quiet of 1,400", c.IdleOpen, c.IdleCounted)
	}
	// The other way round, as STALE TIMEOUTS names them: --timeout-over
	// lists the entries with more time left than a hold gives, here the
	// 100 that took the 5-day hold against the 1,300 left under an hour.
	filter, err := entry.ParseFilter(entry.FilterArgs{"proto": "tcp", "state": "ESTABLISHED", "timeout-over": "4000"})
	if err != nil {
		t.Fatal(err)
	}
	var l *entry.List
	if err := ns.Do(func() (err error) { l, err = sources.ListEntries(filter, "", false, 0); return err }); err != nil {
		t.Fatal(err)
	}
	if l.Matched != 100 {
		t.Errorf("%s matches %d entries, want the 100 given the 5-day hold", filter, l.Matched)
	}
}
