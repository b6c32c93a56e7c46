package model

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestCensusUnansweredDNATTargets: the census names the DNAT targets none
// of whose UDP entries saw a reply, from StaleDNATMin entries, most first,
// bounded; a target that answered some is alive; an entry not DNAT'd (its
// reply from its own destination) is not counted.
func TestCensusUnansweredDNATTargets(t *testing.T) {
	var c CensusCounter
	for i := range 30 {
		c.Add(dnatFlow(uint16(40000+i), "10.244.1.7:53", false)) // gone
	}
	for i := range 12 {
		c.Add(dnatFlow(uint16(41000+i), "10.244.2.9:53", false)) // gone too
	}
	for i := range 40 {
		c.Add(dnatFlow(uint16(42000+i), "10.244.3.3:53", i == 0)) // alive: one answer
	}
	for i := range 9 {
		c.Add(dnatFlow(uint16(43000+i), "10.244.4.4:53", false)) // too few to name
	}
	for i := range 50 { // no DNAT: the reply comes from the destination
		f := dnatFlow(uint16(44000+i), "10.96.0.10:53", false)
		c.Add(f)
	}
	for i := range dnatTracked + 10 { // a flood of targets stays bounded
		c.Add(dnatFlow(50000, fmt.Sprintf("10.9.%d.%d:53", i/250, i%250), false))
	}
	got := c.Census(10).StaleDNAT
	want := "[{10.244.1.7:53 30 30 10.96.0.10:53  false} {10.244.2.9:53 12 12 10.96.0.10:53  false}]"
	if fmt.Sprint(got) != want || len(c.dnat) > dnatTracked {
		t.Errorf("stale DNAT %v (%d tracked), want %s", got, len(c.dnat), want)
	}
}

// dnatFlow is a UDP entry from a client port to the service 10.96.0.10:53
// that a DNAT sent to target; replied says it saw an answer.
func dnatFlow(port uint16, target string, replied bool) Flow {
	to := netip.MustParseAddrPort(target)
	f := Flow{Proto: 17, Src: netip.MustParseAddr("10.0.0.5"), Dst: netip.MustParseAddr("10.96.0.10"), SrcPort: port, DstPort: 53,
		TCPState: -1, ReplySrc: to.Addr(), ReplySrcPort: to.Port()}
	if replied {
		f.Status = StatusSeenReply
	}
	return f
}

// TestJudgeDNAT: the ruleset judges every DNAT target the dump counted,
// whatever its count: one entry answered while its backend lived is stale
// once the ruleset no longer names it, and named by its Service; a target
// still named is kept only when none of its many entries was answered;
// gone ones come first, StaleDNATShown in all.
func TestJudgeDNAT(t *testing.T) {
	var c CensusCounter
	c.Add(dnatFlow(40000, "10.244.1.7:53", true)) // the one long-lived socket, answered before
	for i := range 30 {
		c.Add(dnatFlow(uint16(41000+i), "10.244.2.9:53", false)) // never answered, still in the ruleset
	}
	for i := range 5 {
		c.Add(dnatFlow(uint16(42000+i), "10.244.3.3:53", true)) // alive
	}
	for i := range 8 {
		c.Add(dnatFlow(uint16(43000+i), fmt.Sprintf("10.244.9.%d:53", i), true)) // gone too, more than shown
	}
	cen := c.Census(10)
	if got := fmt.Sprint(cen.StaleDNAT); got != "[{10.244.2.9:53 30 30 10.96.0.10:53  false}]" {
		t.Errorf("before the ruleset: %s", got)
	}
	named := map[string]bool{"10.244.2.9": true, "10.244.3.3": true}
	cen.JudgeDNAT(func(a netip.Addr) bool { return named[a.String()] }, func(t DNATTarget) string {
		if t.Via == "10.96.0.10:53" {
			return "kube-system/kube-dns:dns"
		}
		return ""
	})
	if !cen.DNATChecked || len(cen.StaleDNAT) != StaleDNATShown {
		t.Fatalf("judged %v: %v", cen.DNATChecked, cen.StaleDNAT)
	}
	for _, d := range cen.StaleDNAT {
		if !d.Gone || d.Service != "kube-system/kube-dns:dns" || d.Count() != 1 {
			t.Errorf("kept %+v: gone ones first, each named", d)
		}
	}
	// The one-entry census the rule's table starts from (TestRuleStaleDNAT).
	one := CensusCounter{}
	one.Add(dnatFlow(40000, "10.244.1.7:53", true))
	cen = one.Census(10)
	cen.JudgeDNAT(func(netip.Addr) bool { return false }, nil)
	if want := (DNATTarget{Target: "10.244.1.7:53", Entries: 1, Via: "10.96.0.10:53", Gone: true}); len(cen.StaleDNAT) != 1 || cen.StaleDNAT[0] != want {
		t.Errorf("one stale entry: %+v, want %+v", cen.StaleDNAT, want)
	}
}
