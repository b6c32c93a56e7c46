package diagnose

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
)

// TestInsertClashByKernel: INSERT CLASH says what the host's kernel does.
// One that reports clash_resolve (5.10 on) resolves two UDP flows racing
// for one tuple itself (since 5.6), so its drops are not the 5 s DNS race
// and the clients' resolver options are not their fix; one that reports
// no such counter may be older, and is told the race and its fixes.
func TestInsertClashByKernel(t *testing.T) {
	drops := idle()
	drops.CTTotal.Set(model.Drop, 5)
	drops.CTTotal.Set(model.InsertFailed, 5)
	s := table(300, 300, 262144)
	s.NAT = &model.NAT{}
	old, _ := ruleInsertClash(Inputs{Sample: s, Rates: drops})
	s.CTStats.Reported = append(s.CTStats.Reported, model.ClashResolve)
	recent, _ := ruleInsertClash(Inputs{Sample: s, Rates: drops})
	if !strings.Contains(old.Text(), "the 5 s DNS delay on kernels before 5.6") || !strings.Contains(old.Text(), "single-request-reopen") {
		t.Errorf("a kernel that counts no resolved clashes: %s", old.Text())
	}
	if !strings.Contains(recent.Text(), "this kernel resolves two UDP flows racing for one (clash_resolve, since 5.6)") ||
		strings.Contains(recent.Text(), "single-request-reopen") || !strings.Contains(recent.Text(), "not the 5 s DNS race") {
		t.Errorf("a kernel that resolves clashes: %s", recent.Text())
	}
}

// TestNATPortsByKernel: from 6.5 the kernel's source NAT takes back a
// TIME_WAIT tuple for a new TCP flow in its last tries, so NAT PORTS on
// such a kernel does not tell shortening TIME_WAIT as the fix; before
// it, it does; unknown, it says both.
func TestNATPortsByKernel(t *testing.T) {
	drops := idle()
	drops.CTTotal.Set(model.Drop, 12)
	drops.CTTotal.Set(model.InsertFailed, 12)
	cen := &model.Census{Total: 12, TopDests: []tally.Count{{Key: "127.0.0.1", N: 8}}, TCPState: map[string]int{"TIME_WAIT": 3}, TopTimeWaitDests: []tally.Count{{Key: "127.0.0.1", N: 2}}}
	for kernel, c := range map[string]struct{ says, never string }{
		"6.8.0-31-generic": {"hold their tuples until a new flow's last tries take them back (this kernel reclaims TIME_WAIT tuples, 6.5 on)", "shorten TIME_WAIT"},
		"6.1.0-41-amd64":   {"(3 in all) still hold their tuples: widen its ports, reuse connections (keep-alive) or spread them over more destinations, shorten TIME_WAIT on that path", "6.5"},
		"":                 {"hold their tuples (before 6.5; from 6.5 a new flow's last tries take them back)", "this kernel reclaims"},
	} {
		s := table(12, 12, 262144)
		s.KernelRelease = kernel
		s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "snat", Chain: "ip natlab post", Addrs: []string{"127.0.0.1"}, Ports: [2]uint16{20000, 20007}}}}
		v, ok := ruleNATPorts(Inputs{Sample: s, Rates: drops, Census: cen})
		if !ok || !strings.Contains(v.Text(), c.says) || strings.Contains(v.Text(), c.never) {
			t.Errorf("kernel %q: %s\nwant %q, never %q", kernel, v.Text(), c.says, c.never)
		}
	}
}

// TestUDPAssuredEarly: before 5.16 (5.10.80 in the stable line) a third
// UDP packet within 2 s assured the entry while it kept the single-shot
// timeout, so glibc's A+AAAA lookups on one socket read as streams; the
// census classes such an entry by the hold it has left.
func TestUDPAssuredEarly(t *testing.T) {
	for release, want := range map[string]bool{"5.4.0-150-generic": true, "5.10.79": true, "5.10.80-1": false, "5.15.0-91-generic": true,
		"5.16.0": false, "6.1.0-41-amd64": false, "": false, "garbage": false} {
		if got := model.UDPAssuredEarly(release); got != want {
			t.Errorf("UDPAssuredEarly(%q) = %v, want %v", release, got, want)
		}
	}
	holds := model.ClassCounts{}
	holds[model.ClassUDPSingle], holds[model.ClassUDPStream] = 30, 120
	lookup := model.Flow{Proto: 17, Status: model.StatusAssured | model.StatusSeenReply, Timeout: 28}
	stream := model.Flow{Proto: 17, Status: model.StatusAssured | model.StatusSeenReply, Timeout: 110}
	for _, c := range []struct {
		f     model.Flow
		early bool
		want  model.Class
	}{
		{lookup, true, model.ClassUDPSingle},
		{stream, true, model.ClassUDPStream},
		{lookup, false, model.ClassUDPStream},
	} {
		if got := model.ClassHeld(c.f, holds, c.early); got != c.want {
			t.Errorf("ClassHeld(%d s left, early %v) = %s, want %s", c.f.Timeout, c.early, got, c.want)
		}
	}
	cc := model.NewCensusCounter(holds)
	cc.AssuredEarly = true
	cc.Add(lookup)
	cc.Add(stream)
	if cen := cc.Census(4); cen.ByClass[model.ClassUDPSingle] != 1 || cen.ByClass[model.ClassUDPStream] != 1 {
		t.Errorf("a census on a 5.15 kernel classes %v", cen.ByClass)
	}
}
