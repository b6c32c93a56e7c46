package tuning

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/arith"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

func TestParseValue(t *testing.T) {
	tests := []struct {
		key, value, want, err string
	}{
		{knob.Max, "32768", "32768", ""},
		{knob.Max, " 65536\n", "65536", ""},
		{knob.PortRange, "10240 65535", "10240 65535", ""},
		{knob.PortRange, "10240-65535", "10240 65535", ""},
		{knob.TwReuse, "1", "1", ""},
		{"net.netfilter.nf_conntrack_mx", "1", "", "unknown key"},
		{knob.Max, "lots", "", "wants a number"},
		{knob.Max, "-5", "", "negative"},
		{knob.Max, "99999999999999999999999", "", "overflows"},
		{knob.Max, "4294967296", "", "outside"},
		{knob.Max, "0", "", "outside"},
		{knob.PortRange, "60000 1024", "", "inverted"},
		{knob.PortRange, "0 70000", "", "outside"},
		{knob.PortRange, "1024", "", "two ports"},
		{knob.TwReuse, "3", "", "outside"},
	}
	for _, tt := range tests {
		got, err := ParseValue(tt.key, tt.value)
		if tt.err != "" {
			if !errors.Is(err, ErrBadValue) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseValue(%s, %q) err %v, want %q", tt.key, tt.value, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseValue(%s, %q) = %q, %v; want %q", tt.key, tt.value, got, err, tt.want)
		}
	}
}

func TestPlanWriteUpNumbers(t *testing.T) {
	// 570/s at a 30 s hold: ~17,000 working set → 32,768 (the write-up).
	if ws := arith.WorkingSet(570, 30, 0); ws != 17100 {
		t.Fatalf("working set %d", ws)
	}
	if got := ProposeMax(17100, 4096); got != 32768 {
		t.Errorf("ProposeMax(17,100) = %d, want 32,768", got)
	}
	if got := ProposeMax(100, 262144); got != 262144 {
		t.Errorf("ProposeMax never lowers: got %d", got)
	}
	// The garage VM: 4,096 at 120 s, pinned; 512 MiB, 5.15, 256 B entries.
	in := Inputs{
		Current: map[string]string{knob.Max: "4096", knob.Hashsize: "4096", knob.TimeWait: "120",
			knob.Somaxconn: "4096", knob.SynBacklog: "512", knob.PortRange: "32768 60999", knob.TwReuse: "2"},
		PeakRate: 33, PeakCount: 4096, Kernel: "5.15.0-91-generic", MemTotal: 512 << 20, EntryBytes: 256,
	}
	p := ProposePlan(in)
	got := map[string]Change{}
	for _, c := range p.Changes {
		got[c.Key] = c
	}
	if got[knob.Max].Proposed != "8192" || got[knob.Hashsize].Proposed != "8192" || got[knob.TimeWait].Proposed != "30" {
		t.Errorf("plan %+v", p.Changes)
	}
	if !strings.Contains(got[knob.TimeWait].Why.Text(), "ceiling of 34/s (4,096 ÷ 120 s)") {
		t.Errorf("TIME_WAIT why: %q", got[knob.TimeWait].Why.Text())
	}
	if _, ok := got[knob.Somaxconn]; ok {
		t.Errorf("backlog knobs proposed without a LISTEN OVERFLOW")
	}
	wantBytes := uint64(8192*256 + 8192*8)
	if p.Cost.Bytes != wantBytes || math.Abs(p.Cost.PctOfRAM-100*float64(wantBytes)/(512<<20)) > 1e-9 || p.Cost.Level() != verdict.SevOK {
		t.Errorf("cost %+v, want %d bytes", p.Cost, wantBytes)
	}
	// An older kernel: buckets = max / 4; only ever raised.
	in.Kernel = "5.10.0"
	in.Current[knob.Hashsize] = "16384"
	for _, c := range ProposePlan(in).Changes {
		if c.Key == knob.Hashsize {
			t.Errorf("hashsize lowered from 16,384 to %s", c.Proposed)
		}
	}
	// Listen overflow and port exhaustion pull in their knobs.
	in.Verdicts = []verdict.Kind{verdict.ListenOverflow, verdict.PortExhaustion}
	keys := map[string]bool{}
	for _, c := range ProposePlan(in).Changes {
		keys[c.Key] = true
	}
	for _, k := range []string{knob.SynBacklog, knob.PortRange, knob.TwReuse} {
		if !keys[k] {
			t.Errorf("plan lacks %s with LISTEN OVERFLOW and PORT EXHAUSTION", k)
		}
	}
}

func TestMemoryCost(t *testing.T) {
	// The write-up: 65,536 entries is ~20 MB, 4 % of a 512 MB VM: fine.
	if c := MemoryCost(65536, 65536, 0, 512<<20); c.Level() != verdict.SevOK || math.Round(c.PctOfRAM) != 4 {
		t.Errorf("65,536 on 512 MiB: %+v", c)
	}
	c := MemoryCost(131072, 131072, 0, 512<<20)
	if !c.EntryBytesAssumed || c.Bytes != 131072*FallbackEntryBytes+131072*8 || c.Level() != verdict.SevWarn {
		t.Errorf("cost %+v (%.1f %%), want the fallback size and a warning", c, c.PctOfRAM)
	}
	if MemoryCost(1<<22, 1<<22, 256, 512<<20).Level() != verdict.SevCrit {
		t.Errorf("4M entries on 512 MiB not refused")
	}
	if got := NextPow2(17100); got != 32768 {
		t.Errorf("NextPow2 = %d", got)
	}
}

// TestNewInputs: peaks over what was measured, the open connections
// and verdicts of now.
func TestNewInputs(t *testing.T) {
	r := tally.NewRing[diagnose.Frame](4)
	for i, c := range []struct {
		rate float64
		peak uint64
	}{{10, 500}, {570, 3900}, {40, 4096}} {
		r.Push(diagnose.Frame{Sample: model.Sample{Conntrack: model.Conntrack{Peak: c.peak}, TCP: model.TCP{Established: uint64(i)}},
			Rates: model.Rates{Entries: tcpRate(c.rate)}})
	}
	now := diagnose.Frame{Sample: model.Sample{TCP: model.TCP{Established: 8}}, Verdicts: []verdict.Verdict{{Kind: verdict.TableFull}, {Kind: verdict.EarlyDropping}}}
	in := NewInputs(map[string]string{knob.Max: "4096"}, model.Host{Kernel: "6.18.0", MemTotal: 1 << 30}, 256, r, now)
	if in.PeakRate != 570 || in.PeakCount != 4096 || in.Established != 8 || in.Kernel != "6.18.0" || in.EntryBytes != 256 ||
		len(in.Verdicts) != 2 || in.Verdicts[0] != verdict.TableFull {
		t.Errorf("inputs %+v", in)
	}
	r.Push(diagnose.Frame{Pinned: true, Rates: model.Rates{Entries: tcpRate(4)}, Demand: diagnose.Demand{AtLeast: 3100, Basis: "the rate before the pin"}})
	if got := NewInputs(nil, model.Host{}, 0, r, now).PeakRate; got != 3100 {
		t.Errorf("pinned at 4/s with a demand of 3,100/s: peak rate %v, want the demand", got)
	}
	if empty := NewInputs(nil, model.Host{}, 0, tally.NewRing[diagnose.Frame](1), now); empty.PeakRate != 0 || empty.PeakCount != 0 {
		t.Errorf("nothing measured: %+v", empty)
	}
}
