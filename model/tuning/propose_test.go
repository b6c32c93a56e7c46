package tuning

import (
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// TestProposeByClass: the plan lowers the timeout of the class that
// fills the table and sizes max on the demand by class after it.
func TestProposeByClass(t *testing.T) {
	cur := func(max string) map[string]string {
		return map[string]string{knob.Max: max, knob.Hashsize: "1024", knob.TimeWait: "120", knob.UDPTimeout: "30", knob.SynSent: "120", knob.UDPStream: "120"}
	}
	fill := func(cfs ...diagnose.ClassFill) diagnose.Fill {
		return diagnose.Fill{Basis: model.BasisEvents, Classes: cfs}
	}
	for _, c := range []struct {
		name     string
		in       Inputs
		want     map[string]string
		why      string
		unwanted []string
	}{
		{"DNS through glibc against a cap of 400: the UDP timeout first",
			Inputs{Current: cur("400"), PeakRate: 700, PeakCount: 400, MemTotal: 1 << 34,
				Fill: fill(diagnose.ClassFill{Class: model.ClassUDPSingle, RatePS: 700, Hold: 30, Entries: 400})},
			map[string]string{knob.UDPTimeout: "10", knob.Max: "16384"}, "700/s held 30 s each need 21,000 entries; at 10 s, 7,000",
			[]string{knob.TimeWait, knob.UDPStream}},
		{"the console opened during a pin: sized on the demand, not the 4/s admitted",
			Inputs{Current: cur("500"), PeakRate: 3100, PeakCount: 500, MemTotal: 1 << 34,
				Fill: fill(diagnose.ClassFill{Class: model.ClassTCPDone, RatePS: 4, Hold: 120, Entries: 480})},
			map[string]string{knob.TimeWait: "30", knob.Max: "262144"}, "3,100/s held 120 s each", nil},
		{"unanswered SYNs: the SYN_SENT hold, and where the fix is",
			Inputs{Current: cur("2048"), PeakRate: 160, PeakCount: 2048, MemTotal: 1 << 34, TopDest: "tcp/18093",
				Fill: fill(diagnose.ClassFill{Class: model.ClassTCPUnanswered, RatePS: 160, Hold: 120, Entries: 2048})},
			map[string]string{knob.SynSent: "30", knob.Max: "8192"}, "tcp/18093 never answers", []string{knob.TimeWait}},
		{"unanswered SYNs on 5.10, whose retries renew SYN_SENT: held 183 s, 93 s after the change",
			Inputs{Current: cur("2048"), PeakRate: 10, PeakCount: 2048, MemTotal: 1 << 34, Kernel: "5.10.0-30-amd64",
				Fill: fill(diagnose.ClassFill{Class: model.ClassTCPUnanswered, RatePS: 10, Hold: 183, Entries: 1830})},
			map[string]string{knob.SynSent: "30"}, "10/s held 183 s each need 1,830 entries; at 30 s (93 s with the 63 s of SYN retries this kernel renews it by), 930", nil},
		{"UDP streams fill it: the stream timeout, only then",
			Inputs{Current: cur("2048"), PeakRate: 40, PeakCount: 2048, MemTotal: 1 << 34,
				Fill: fill(diagnose.ClassFill{Class: model.ClassUDPStream, RatePS: 40, Hold: 120, Entries: 2048})},
			map[string]string{knob.UDPStream: "60", knob.Max: "4096"}, "40/s held 120 s each need 4,800 entries; at 60 s, 2,400",
			[]string{knob.UDPTimeout, knob.TimeWait}},
		{"standing connections, many idle or in CLOSE_WAIT: named, no timeout proposed",
			Inputs{Current: cur("2000"), PeakRate: 0.5, PeakCount: 2000, MemTotal: 1 << 34,
				Census: &model.Census{Total: 2000, IdleOpen: 1200, IdleCounted: true, TCPState: map[string]int{"ESTABLISHED": 1600, "CLOSE_WAIT": 300}},
				Fill:   fill(diagnose.ClassFill{Class: model.ClassTCPOpen, Hold: 432000, Entries: 1900}, diagnose.ClassFill{Class: model.ClassTCPDone, RatePS: 0.5, Hold: 120, Entries: 60})},
			map[string]string{knob.Max: "4096"}, "1,200 of them idle over an hour, held by nf_conntrack_tcp_timeout_established (432,000 s): lowering it frees those",
			[]string{knob.TimeWait, knob.UDPTimeout, knob.SynSent, knob.UDPStream}},
		{"standing connections: a timeout frees nothing live",
			Inputs{Current: cur("2000"), PeakRate: 0.5, PeakCount: 2000, MemTotal: 1 << 34,
				Fill: fill(diagnose.ClassFill{Class: model.ClassTCPOpen, Entries: 1900}, diagnose.ClassFill{Class: model.ClassTCPDone, RatePS: 0.5, Hold: 120, Entries: 60})},
			map[string]string{knob.Max: "4096"}, "1,900 standing open", []string{knob.TimeWait, knob.UDPTimeout, knob.SynSent}},
	} {
		p := ProposePlan(c.in)
		got := map[string]string{}
		var whys []string
		for _, ch := range p.Changes {
			got[ch.Key] = ch.Proposed
			whys = append(whys, ch.Why.Text())
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s → %q, want %q (plan %+v)", c.name, k, got[k], v, p.Changes)
			}
		}
		for _, k := range c.unwanted {
			if _, ok := got[k]; ok {
				t.Errorf("%s: %s proposed (%s)", c.name, k, got[k])
			}
		}
		if all := strings.Join(whys, " | "); !strings.Contains(all, c.why) {
			t.Errorf("%s: the arithmetic %q lacks %q", c.name, all, c.why)
		}
	}
}

// TestBucketsOnEveryNamespace: the hash is one for every namespace, so
// the buckets a plan proposes hold this table's entries and the other
// namespaces' together — for HASH CHAINS and for a raise of max alike.
func TestBucketsOnEveryNamespace(t *testing.T) {
	cur := map[string]string{knob.Max: "262144", knob.Hashsize: "512", knob.TimeWait: "120"}
	for _, c := range []struct {
		name   string
		others uint64
		want   string
	}{
		{"alone", 0, "16384"},
		{"beside two namespaces of 10,000", 20000, "32768"},
	} {
		p := ProposePlan(Inputs{Current: cur, PeakCount: 10000, MemTotal: 1 << 34, OtherEntries: c.others, Verdicts: []verdict.Kind{verdict.HashChains}})
		var got Change
		for _, ch := range p.Changes {
			if ch.Key == knob.Hashsize {
				got = ch
			}
		}
		if got.Proposed != c.want || (c.others > 0 && !strings.Contains(got.Why.Text(), "and the other namespaces' 20,000")) {
			t.Errorf("%s: hashsize %+v, want %s", c.name, got, c.want)
		}
	}
	small := map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120"}
	p := ProposePlan(Inputs{Current: small, PeakCount: 4096, PeakRate: 30, MemTotal: 1 << 34, OtherEntries: 30000, Verdicts: []verdict.Kind{verdict.TableFull}})
	for _, ch := range p.Changes {
		if ch.Key == knob.Hashsize && ch.Proposed != "65536" {
			t.Errorf("a raise beside 30,000 other entries: hashsize %+v, want 65,536 (the working set and theirs)", ch)
		}
	}
}

// TestWorstCaseOverNamespaces: the cap holds each namespace's count on
// its own, so the memory preview says what every namespace filling to it
// would take, where the host has more than one.
func TestWorstCaseOverNamespaces(t *testing.T) {
	cur := map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120"}
	in := Inputs{Current: cur, PeakCount: 4096, PeakRate: 30, MemTotal: 1 << 30, EntryBytes: 256, Namespaces: 24, Verdicts: []verdict.Kind{verdict.TableFull}}
	p := ProposePlan(in)
	if w := p.Cost.WorstCase(); w != "each of 24 namespaces may fill to the cap on its own: 24 × 8,192 entries × 256 B = 48.0 MiB at worst (4.7 % of RAM)" {
		t.Errorf("worst case %q", w)
	}
	in.Namespaces = 1
	if w := ProposePlan(in).Cost.WorstCase(); w != "" {
		t.Errorf("one namespace: %q", w)
	}
}
