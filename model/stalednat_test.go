package model

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

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

func TestRuleStaleDNAT(t *testing.T) {
	targets := []DNATTarget{{Target: "10.244.2.9:53", Unreplied: 40}, {Target: "10.244.1.7:53", Unreplied: 30, Gone: true}}
	for _, tc := range []struct {
		name string
		cen  *Census
		want string // "" for no verdict
	}{
		{"a gone target", &Census{Total: 90, StaleDNAT: targets, DNATChecked: true},
			"30 UDP entries a DNAT sent to 10.244.1.7:53, which the ruleset no longer names (none ever saw a reply)"},
		{"its fix names the gone one", &Census{Total: 90, StaleDNAT: targets, DNATChecked: true}, "conntrack -D -p udp --reply-src 10.244.1.7 drops them now"},
		{"two gone: how many each", &Census{Total: 90, StaleDNAT: []DNATTarget{{Target: "10.244.2.9:53", Unreplied: 40, Gone: true}, targets[1]}, DNATChecked: true},
			"70 UDP entries a DNAT sent to 10.244.2.9:53 (40), 10.244.1.7:53 (30), which the ruleset no longer names (none ever saw a reply)"},
		{"one entry answered before, its Service named", &Census{Total: 1, StaleDNAT: []DNATTarget{{Target: "10.244.1.7:53", Entries: 1, Via: "10.96.0.10:53",
			Service: "kube-system/kube-dns:dns", Gone: true}}, DNATChecked: true},
			"1 UDP entry a DNAT sent to 10.244.1.7:53 (Service kube-system/kube-dns:dns, asked as 10.96.0.10:53), which the ruleset no longer names (it saw replies before its target went)"},
		{"a target still in the ruleset: not answering, not gone", &Census{Total: 90, StaleDNAT: targets[:1], DNATChecked: true}, ""},
		{"the ruleset not read: unknown, no verdict", &Census{Total: 90, StaleDNAT: targets}, ""},
		{"no census", nil, ""},
	} {
		v, ok := ruleStaleDNAT(Inputs{Sample: table(90, 90, 262144), Census: tc.cen})
		switch {
		case tc.want == "" && ok:
			t.Errorf("%s: %s", tc.name, v)
		case tc.want != "" && (!ok || !strings.Contains(v.Text(), tc.want)):
			t.Errorf("%s: %v %q, want %q", tc.name, ok, v.Text(), tc.want)
		case ok && !strings.HasPrefix(v.Entries, "-p udp --reply-src 10.244.") || ok && !strings.Contains(v.Text(), "conntrack -D "+v.Entries):
			t.Errorf("%s: the entries to drop %q are not the ones the evidence names: %s", tc.name, v.Entries, v.Text())
		}
	}
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
	one := CensusCounter{}
	one.Add(dnatFlow(40000, "10.244.1.7:53", true))
	cen = one.Census(10)
	cen.JudgeDNAT(func(netip.Addr) bool { return false }, nil)
	v, ok := ruleStaleDNAT(Inputs{Sample: table(1, 1, 262144), Census: &cen})
	if !ok || v.Entries != "-p udp --reply-src 10.244.1.7" || !strings.HasPrefix(v.Text(), "1 UDP entry a DNAT sent to 10.244.1.7:53 (asked as 10.96.0.10:53)") {
		t.Errorf("one stale entry: %v %q", ok, v.Text())
	}
}
