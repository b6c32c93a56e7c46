package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// idle is one interval of a 1-vCPU box doing nothing: 96 % idle.
func idle() model.Rates {
	return model.Rates{Elapsed: time.Second, CTTotal: model.CounterValues{},
		CPUAll: model.CPUUse{CPU: -1, User: 3, System: 1, Idle: 96}}
}

func table(count, peak, max uint64) model.Sample {
	return model.Sample{Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked,
		Count: count, Peak: peak, Max: max, Buckets: max, TimeWaitHold: 120}}
}

// verdictCase is one row of the rules' table test: the inputs, the top
// verdict and others that hold, and words the top one's evidence says.
type verdictCase struct {
	name     string
	in       Inputs
	want     verdict.Kind
	also     []verdict.Kind
	evidence string
}

// verdictInputs are the inputs of every row of the rules' table test.
func verdictInputs() []Inputs {
	var out []Inputs
	for _, c := range verdictCases() {
		out = append(out, c.in)
	}
	return out
}

func verdictCases() []verdictCase {
	with := func(r model.Rates, f func(*model.Rates)) model.Rates { f(&r); return r }
	elevenSeconds := &Episode{Start: time.Unix(0, 0), Last: time.Unix(11, 0), Open: true, Drops: 5937}
	return []verdictCase{
		{"healthy", Inputs{Sample: table(525, 530, 4096), Rates: idle()}, verdict.OK, nil, "count 525 of max 4,096"},
		{"no module", Inputs{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableNoModule}}, Rates: idle()}, verdict.OK, nil, "no conntrack table"},
		{"near cap", Inputs{Sample: table(3936, 3936, 4096), Rates: idle()}, verdict.NearCap, nil, "peak 3,936 of max 4,096 (96 %)"},
		{"burst between frames reaches the cap: peak, not count, decides",
			Inputs{Sample: table(3000, 4096, 4096), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 12) })}, verdict.TableFull, nil, "12 drops"},
		{"the write-up's incident",
			Inputs{Sample: table(4096, 4096, 4096), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 540); r.SynRetransPS = 30 }),
				Episode: elevenSeconds},
			verdict.TableFull, nil, "count pinned at max 4,096 for 11 s, 5,937 drops, server idle (CPU 4 %, disk 0 IO/s)"},
		{"the census names the owner holding most of the table",
			Inputs{Sample: table(4096, 4096, 4096), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 540) }), Episode: elevenSeconds,
				Owners: &model.Owners{Top: []model.OwnerCount{{Owner: model.Owner{Comm: "duckdb", PID: 4242, Group: "user.slice", Kind: "cgroup"}, N: 3700, Peer: "10.5.5.14:3900", PeerN: 3700}},
					Unowned: model.ClassCounts{model.ClassTCPDone: 396}}},
			verdict.TableFull, nil, "; 90 % of the table's entries held by duckdb (pid 4242, user.slice) → 10.5.5.14:3900"},
		{"the listener that overflows is named",
			Inputs{Sample: model.Sample{Conntrack: model.Conntrack{Status: model.TableTracked, Count: 10, Peak: 10, Max: 4096},
				Listeners: &model.Listeners{Somaxconn: 4096, Pressed: []model.Listener{{Addr: "127.0.0.1:8080", Queue: 6, Backlog: 5,
					Owner: model.Owner{Comm: "slow", PID: 42, Group: "slow.service", Kind: "unit"}}, {Addr: "[::]:443", Queue: 4096, Backlog: 4096}}}},
				Rates: with(idle(), func(r *model.Rates) { r.ListenOverflowsPS = 3 })},
			verdict.ListenOverflow, nil, "; fullest: 127.0.0.1:8080 of slow (pid 42, slow.service): 6 waiting, backlog 5 (as asked; somaxconn 4,096) (and 1 more)"},
		{"at the cap for one interval without drops is not yet full",
			Inputs{Sample: table(4096, 4096, 4096), Rates: idle(), Episode: &Episode{Start: time.Unix(0, 0), Last: time.Unix(1, 0), Open: true}},
			verdict.OK, nil, ""},
		{"pinned two intervals without drops is full",
			Inputs{Sample: table(4096, 4096, 4096), Rates: idle(), Episode: &Episode{Start: time.Unix(0, 0), Last: time.Unix(2, 0), Open: true}},
			verdict.TableFull, nil, "for 2 s, 0 drops"},
		{"early drop", Inputs{Sample: table(4096, 4096, 4096), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.EarlyDrop, 77); r.CTTotal.Set(model.Drop, 3) })},
			verdict.TableFull, []verdict.Kind{verdict.EarlyDropping}, ""},
		{"early drop alone", Inputs{Sample: table(4000, 4000, 4096), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.EarlyDrop, 77) })},
			verdict.EarlyDropping, []verdict.Kind{verdict.NearCap}, "evicted 77 unassured entries"},
		{"hash chains", Inputs{Sample: table(40000, 40000, 262144), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.ChainTooLong, 4) })},
			verdict.HashChains, nil, "4 chain-too-long events"},
		{"listen overflow", Inputs{Sample: table(100, 100, 4096), Rates: with(idle(), func(r *model.Rates) { r.ListenOverflowsPS = 41; r.ListenDropsPS = 41; r.SynRetransPS = 20 })},
			verdict.ListenOverflow, nil, "41 listen overflows/s"},
		{"port exhaustion", Inputs{Sample: func() model.Sample {
			s := table(100, 100, 262144)
			s.TCP = model.TCP{TimeWait: 27000, Established: 100, PortRange: [2]uint64{32768, 60999}}
			s.Ports = &model.PortUse{Dests: []model.DestPorts{{Src: "10.0.0.2", Dst: "10.0.0.9:80", Ports: 27050, TimeWait: 27000}}, Outbound: 27050}
			return s
		}(), Rates: idle()}, verdict.PortExhaustion, nil, "27,050 of the 28,232 local ports (32768-60999) are taken by sockets from 10.0.0.2 to 10.0.0.9:80 (27,000 in TIME_WAIT)"},
		{"ports fine", Inputs{Sample: func() model.Sample {
			s := table(100, 100, 262144)
			s.TCP = model.TCP{TimeWait: 2000, PortRange: [2]uint64{32768, 60999}}
			return s
		}(), Rates: idle()}, verdict.OK, nil, ""},
		{"server cpu-bound", Inputs{Sample: table(17000, 17000, 32768), Rates: with(idle(), func(r *model.Rates) { r.CPUAll = model.CPUUse{User: 80, System: 12, Idle: 8} })},
			verdict.CPUBound, nil, "CPU 92 % busy (user 80 %, system 12 %, softirq 0 %) with no table drops"},
		{"a busy server's resolved clashes said as OK says them", Inputs{Sample: table(17000, 17000, 32768), Rates: with(idle(), func(r *model.Rates) {
			r.CPUAll = model.CPUUse{User: 80, System: 12, Idle: 8}
			r.CTTotal.Set(model.ClashResolve, 40)
		})},
			verdict.CPUBound, nil, "with no table drops: the work itself is the limit; 40 clashes the kernel resolved (clash_resolve: harmless)"},
		{"busy CPUs beside a dropping table are not said to be the server's",
			Inputs{Sample: table(400, 400, 400), Rates: with(idle(), func(r *model.Rates) {
				r.CPUAll = model.CPUUse{User: 70, System: 25, Idle: 5}
				r.CTTotal.Set(model.Drop, 90)
			})},
			verdict.TableFull, []verdict.Kind{verdict.CPUBound}, ""},
		{"disk-bound by utilisation", Inputs{Sample: table(10, 10, 4096), Rates: with(idle(), func(r *model.Rates) { r.Disks = []model.DiskRate{{Name: "vda", WritesPS: 900, Util: 97}} })},
			verdict.DiskBound, nil, "disk busy 97 %"},
		{"disk-bound by iowait", Inputs{Sample: table(10, 10, 4096), Rates: with(idle(), func(r *model.Rates) { r.CPUAll = model.CPUUse{IOWait: 45, Idle: 50, User: 5} })},
			verdict.DiskBound, nil, "iowait 45 %"},
		{"client stalled on network", Inputs{Sample: table(20, 20, 4096), Rates: with(idle(), func(r *model.Rates) { r.SynRetransPS = 6 })},
			verdict.ClientStalled, nil, "6 SYN retransmits/s with CPU 4 %"},
		{"SYN retransmits with local drops are the table, not the network",
			Inputs{Sample: table(4096, 4096, 4096), Rates: with(idle(), func(r *model.Rates) { r.SynRetransPS = 6; r.CTTotal.Set(model.Drop, 9) })},
			verdict.TableFull, nil, ""},
		{"SYN retransmits seconds after this table dropped are its clients retrying",
			Inputs{Sample: table(900, 900, 16384), Rates: with(idle(), func(r *model.Rates) { r.SynRetransPS = 6 }), RecentDrops: true},
			verdict.OK, nil, ""},
		{"drops between reads of the count: full, never \"no drops\"",
			Inputs{Sample: table(900, 900, 16384), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 8) })},
			verdict.TableFull, nil, "the table filled between reads (peak 900 of max 16,384), 8 drops"},
		{"what fills it, and the demand",
			Inputs{Sample: table(400, 400, 400), Rates: with(idle(), func(r *model.Rates) {
				r.CTTotal.Set(model.Drop, 30000)
				r.Entries.TopDests = []tally.Count{{Key: "udp/53", N: 700}}
			}),
				Fill:   Fill{Basis: model.BasisEvents, Classes: []ClassFill{{Class: model.ClassUDPSingle, RatePS: 700, Hold: 30, Entries: 400}}},
				Demand: Demand{AtLeast: 3100, Basis: "the rate before the pin"}},
			verdict.TableFull, nil, "400 of 400 entries: ~400 udp/53, 700/s × 30 s needs 21,000; pinned 1 s, 30,000 drops, server idle (CPU 4 %, disk 0 IO/s); demand ≥ 3,100 new/s"},
		{"a source NAT out of ports: insert drops far from the cap, never TABLE FULL",
			Inputs{Sample: func() model.Sample {
				s := table(12, 12, 262144)
				s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "masquerade", Chain: "ip nat post"}, {Rule: "snat", Chain: "ip natlab post", Addrs: []string{"127.0.0.1"}, Ports: [2]uint16{20000, 20007}}}}
				return s
			}(), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 12); r.CTTotal.Set(model.InsertFailed, 12) }),
				Census: &model.Census{Total: 12, TopDests: []tally.Count{{Key: "127.0.0.1", N: 8}}, TopPorts: []tally.Count{{Key: "tcp/18080", N: 8}}, TCPState: map[string]int{"TIME_WAIT": 3},
					TopTimeWaitDests: []tally.Count{{Key: "10.0.0.9", N: 1}, {Key: "127.0.0.1", N: 2}}}},
			verdict.NATPorts, nil, "12 packets dropped on inserting their entry (insert_failed and drop) while the count is 12 of max 262,144: the source NAT snat to 127.0.0.1:20000-20007 in ip natlab post (8 ports for each source–destination pair) finds no free source port for new flows (it tries 240 before it drops, so drops begin before every port is taken); the census's busiest destination 127.0.0.1 (8 entries), tcp/18080 (8); 2 to it in TIME_WAIT (3 in all) hold their tuples (before 6.5; from 6.5 a new flow's last tries take them back): widen"},
		{"a source NAT out of ports to a Service: its busiest destination named by the Service kube-proxy wrote",
			Inputs{Sample: func() model.Sample {
				s := table(12, 12, 262144)
				s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "masquerade", Chain: "ip nat KUBE-POSTROUTING", Ports: [2]uint16{20000, 20007}}}}
				return s
			}(), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 12); r.CTTotal.Set(model.InsertFailed, 12) }),
				Census: &model.Census{Total: 12, TopDests: []tally.Count{{Key: "10.96.0.1", N: 8}}, TopPorts: []tally.Count{{Key: "tcp/443", N: 8}}, DestServices: map[string]string{"10.96.0.1": "default/kubernetes"},
					TCPState: map[string]int{"TIME_WAIT": 3}, TopTimeWaitDests: []tally.Count{{Key: "10.96.0.1", N: 2}}}},
			verdict.NATPorts, nil, "the census's busiest destination 10.96.0.1 (Service default/kubernetes) (8 entries), tcp/443 (8)"},
		{"a fully-random masquerade out of ports: not told to use random-fully",
			Inputs{Sample: func() model.Sample {
				s := table(12, 12, 262144)
				s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "masquerade", Chain: "ip kube-proxy masquerading", Flags: []string{"fully-random"}}}}
				return s
			}(), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 12); r.CTTotal.Set(model.InsertFailed, 12) })},
			verdict.NATPorts, nil, "fully-random in ip kube-proxy masquerading (64,512 ports for each source–destination pair) finds no free source port for new flows (it tries 240 before it drops, so drops begin before every port is taken): widen its ports, reuse connections (keep-alive) or spread them over more destinations, shorten TIME_WAIT on that path; more egress addresses help only other sources' pairs"},
		{"a pool of two addresses: one pair's capacity is its ports, not addresses × ports",
			Inputs{Sample: func() model.Sample {
				s := table(12, 12, 262144)
				s.NAT = &model.NAT{Pools: []model.NATPool{{Rule: "snat", Chain: "ip natlab post", Addrs: []string{"10.0.0.1-10.0.0.2"}, Ports: [2]uint16{20000, 20007}}}}
				return s
			}(), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 12); r.CTTotal.Set(model.InsertFailed, 12) })},
			verdict.NATPorts, nil, "(8 ports for each source–destination pair; its 2 addresses take other pairs, not more of one)"},
		{"insert drops without source NAT: a clash",
			Inputs{Sample: func() model.Sample { s := table(300, 300, 262144); s.NAT = &model.NAT{}; return s }(),
				Rates: with(idle(), func(r *model.Rates) {
					r.CTTotal.Set(model.Drop, 5)
					r.CTTotal.Set(model.InsertFailed, 5)
					r.CTTotal.Set(model.ClashResolve, 40)
				})},
			verdict.InsertClash, nil, "two flows raced for one tuple (no source NAT in the ruleset)"},
		{"the clashes the kernel resolved are said apart",
			Inputs{Sample: func() model.Sample { s := table(300, 300, 262144); s.NAT = &model.NAT{}; return s }(),
				Rates: with(idle(), func(r *model.Rates) {
					r.CTTotal.Set(model.Drop, 5)
					r.CTTotal.Set(model.InsertFailed, 5)
					r.CTTotal.Set(model.ClashResolve, 40)
				})},
			verdict.InsertClash, nil, "not a full table; 40 more clashes the kernel resolved (clash_resolve: harmless)"},
		{"insert drops with the ruleset unread: said so",
			Inputs{Sample: func() model.Sample {
				s := table(300, 300, 262144)
				s.NAT = &model.NAT{Note: "nft is not installed"}
				return s
			}(),
				Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 5); r.CTTotal.Set(model.InsertFailed, 5) })},
			verdict.InsertClash, nil, "(the ruleset was not read: nft is not installed)"},
		{"clashes the kernel resolved drop nothing, and are said",
			Inputs{Sample: table(300, 300, 262144), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.ClashResolve, 40) })}, verdict.OK, nil,
			"no drops; 40 clashes the kernel resolved (clash_resolve: harmless)"},
		{"chains too long drop without counting drop: hash chains, no clash",
			Inputs{Sample: table(40000, 40000, 262144), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.ChainTooLong, 4); r.CTTotal.Set(model.InsertFailed, 4) })},
			verdict.HashChains, nil, "4 chain-too-long events"},
		{"a table full between reads beside clashes: both, the full drops apart",
			Inputs{Sample: table(900, 900, 16384), Rates: with(idle(), func(r *model.Rates) { r.CTTotal.Set(model.Drop, 20); r.CTTotal.Set(model.InsertFailed, 5) })},
			verdict.TableFull, []verdict.Kind{verdict.InsertClash}, "20 drops"},
		{"SYN retransmits on a busy box are not a stalled client",
			Inputs{Sample: table(20, 20, 4096), Rates: with(idle(), func(r *model.Rates) { r.SynRetransPS = 6; r.CPUAll = model.CPUUse{User: 95, Idle: 5} })},
			verdict.CPUBound, nil, ""},
	}
}

func TestVerdictRules(t *testing.T) {
	for _, tt := range verdictCases() {
		t.Run(tt.name, func(t *testing.T) {
			got := Judge(tt.in)
			if got[0].Kind != tt.want {
				t.Fatalf("top verdict %q, want %q (all: %v)", got[0].Kind, tt.want, got)
			}
			for _, k := range tt.also {
				if !hasVerdict(got, k) {
					t.Errorf("verdicts %v lack %q", got, k)
				}
			}
			if !strings.Contains(got[0].Text(), tt.evidence) {
				t.Errorf("evidence %q lacks %q", got[0].Text(), tt.evidence)
			}
		})
	}
}

func TestVerdictsOrderedBySeverity(t *testing.T) {
	r := idle()
	r.CTTotal.Set(model.Drop, 5)
	r.CTTotal.Set(model.ChainTooLong, 1)
	r.ListenOverflowsPS = 2
	got := Judge(Inputs{Sample: table(4096, 4096, 4096), Rates: r})
	var kinds []verdict.Kind
	for _, v := range got {
		kinds = append(kinds, v.Kind)
	}
	want := []verdict.Kind{verdict.TableFull, verdict.ListenOverflow, verdict.HashChains}
	if len(kinds) != len(want) {
		t.Fatalf("got %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("got %v, want %v", kinds, want)
		}
	}
}

func hasVerdict(vs []verdict.Verdict, k verdict.Kind) bool {
	for _, v := range vs {
		if v.Kind == k {
			return true
		}
	}
	return false
}

// TestVerdictsWithoutParts: parts not read are never evidence — no idle
// server invented from nothing, no stalled client without TCP or CPU, no
// CPU-bound box without CPU.
func TestVerdictsWithoutParts(t *testing.T) {
	none := model.Parts(0).With(model.PartCPU).With(model.PartDisks).With(model.PartTCP)
	unread := func(r model.Rates) model.Rates { r.Absent = none; r.CPUAll = model.CPUUse{CPU: -1}; return r }
	full := Inputs{Sample: table(4096, 4096, 4096), Rates: unread(idle())}
	full.Rates.CTTotal.Set(model.Drop, 540)
	full.Sample.Absent = none
	v := Judge(full)
	if v[0].Kind != verdict.TableFull || !strings.Contains(v[0].Text(), "CPU not read, disk not read") || strings.Contains(v[0].Text(), "idle") {
		t.Errorf("table full without CPU and disk: %+v", v[0])
	}
	stalled := Inputs{Sample: table(525, 525, 4096), Rates: unread(idle())}
	stalled.Rates.SynRetransPS = 30
	stalled.Sample.Absent = none
	for _, x := range Judge(stalled) {
		if x.Kind == verdict.ClientStalled || x.Kind == verdict.CPUBound {
			t.Errorf("%v from parts not read: %s", x.Kind, x.Text())
		}
	}
	if ok := Judge(Inputs{Sample: table(525, 525, 4096), Rates: unread(idle())}); !strings.Contains(ok[0].Text(), "CPU not read") {
		t.Errorf("OK says %q", ok[0].Text())
	}
	busy := Inputs{Sample: table(525, 525, 4096), Rates: unread(idle())}
	busy.Rates.CPUAll = model.CPUUse{CPU: -1, User: 99}
	for _, x := range Judge(busy) {
		if x.Kind == verdict.CPUBound {
			t.Errorf("CPU BOUND from a CPU not read")
		}
	}
}

// TestCPUBoundBesideDrops: busy CPUs beside a dropping table never say
// "no table drops" and do not claim the CPU is the server's.
func TestCPUBoundBesideDrops(t *testing.T) {
	r := idle()
	r.CPUAll = model.CPUUse{User: 70, System: 25, Idle: 5}
	r.CTTotal.Set(model.Drop, 90)
	for _, v := range Judge(Inputs{Sample: table(400, 400, 400), Rates: r}) {
		if v.Kind == verdict.CPUBound && (strings.Contains(v.Text(), "no table drops") || !strings.Contains(v.Text(), "whose is not read")) {
			t.Errorf("CPU-bound beside drops: %s", v.Text())
		}
	}
}

// TestNothingToEvict: a full table that drops with early_drop at 0 says
// there is nothing to evict, pointing at max or the established timeout,
// only when its entries are established TCP or assured UDP streams (the
// census's split, or a counted table of standing connections). A table
// of assured TIME_WAIT entries is evicted by the garbage collector near
// the cap (tcp_can_early_drop), uncounted: it says so and never
// "nothing to evict"; a table that evicts, or one mostly unassured, says
// nothing of it.
func TestNothingToEvict(t *testing.T) {
	drops := idle()
	drops.CTTotal.Set(model.Drop, 40)
	evicting := drops
	evicting.CTTotal.Set(model.EarlyDrop, 3)
	established := &model.Census{Total: 256, Assured: 250, Unreplied: 2, AssuredCounted: true, TCPState: map[string]int{"ESTABLISHED": 250}}
	timeWait := &model.Census{Total: 256, Assured: 250, Unreplied: 2, AssuredCounted: true, TCPState: map[string]int{"TIME_WAIT": 240, "ESTABLISHED": 10}}
	seenEvicting := drops
	seenEvicting.Entries = model.EntryRates{Basis: model.BasisEvents}
	seenEvicting.Entries.EvictedPS[model.ClassTCPDone] = 12
	churning := &model.Census{Total: 256, Assured: 20, Unreplied: 200, AssuredCounted: true}
	standing := Fill{Counted: true, Classes: []ClassFill{{Class: model.ClassTCPOpen, Entries: 250}}}
	for _, c := range []struct {
		name, want, wantNot string
		in                  Inputs
	}{
		{"established by the census", "nothing to evict: 250 of the census's 256 entries are established TCP or assured UDP streams (2 unreplied)", "",
			Inputs{Sample: table(256, 256, 256), Rates: drops, Census: established}},
		{"standing by the fill", "nothing to evict: 250 entries stand open", "", Inputs{Sample: table(256, 256, 256), Rates: drops, Fill: standing}},
		{"assured TIME_WAIT", "the garbage collector evicts those near the cap without counting them, only down to 190 (max ÷ 100 × 95) and at its next run", "nothing to evict",
			Inputs{Sample: table(256, 256, 256), Rates: drops, Census: timeWait}},
		{"assured TIME_WAIT under a cap of 100: no eviction", "under a cap of 100 the garbage collector evicts nothing", "evicts those near the cap",
			Inputs{Sample: table(64, 64, 64), Rates: drops, Census: timeWait}},
		{"assured TIME_WAIT, evictions seen", "the garbage collector evicts those near the cap without counting them (12/s evicted, seen in DESTROY events)", "nothing to evict",
			Inputs{Sample: table(256, 256, 256), Rates: seenEvicting, Census: timeWait}},
		{"it evicts", "", "nothing to evict", Inputs{Sample: table(256, 256, 256), Rates: evicting, Census: established}},
		{"mostly unassured", "", "nothing to evict", Inputs{Sample: table(256, 256, 256), Rates: drops, Census: churning}},
	} {
		v := Judge(c.in)[0]
		if c.want != "" && !strings.Contains(v.Text(), c.want) || c.wantNot != "" && strings.Contains(v.Text(), c.wantNot) {
			t.Errorf("%s: %s", c.name, v)
		}
		if strings.HasPrefix(c.want, "nothing to evict") && !strings.Contains(v.Text(), "not the TIME_WAIT hold") {
			t.Errorf("%s: the fix is not pointed at: %s", c.name, v)
		}
	}
}

// TestBeyondEviction: assured entries less the closing TCP states the
// collector evicts; unknown without the assured count.
func TestBeyondEviction(t *testing.T) {
	for _, c := range []struct {
		cs   *model.Census
		want int
		ok   bool
	}{
		{nil, 0, false},
		{&model.Census{Assured: 9, TCPState: map[string]int{"ESTABLISHED": 9}}, 0, false},
		{&model.Census{Assured: 9, AssuredCounted: true, TCPState: map[string]int{"ESTABLISHED": 5, "TIME_WAIT": 3, "CLOSE_WAIT": 1}}, 5, true},
		{&model.Census{Assured: 2, AssuredCounted: true, TCPState: map[string]int{"TIME_WAIT": 7}}, 0, true},
	} {
		if n, ok := c.cs.BeyondEviction(); n != c.want || ok != c.ok {
			t.Errorf("%+v: %d %v, want %d %v", c.cs, n, ok, c.want, c.ok)
		}
	}
}

// TestHashChainsProposeBuckets: long chains far from the cap say the
// hashsize that fixes them with its memory, never max.
func TestHashChainsProposeBuckets(t *testing.T) {
	r := idle()
	r.CTTotal.Set(model.ChainTooLong, 5)
	s := table(10000, 10000, 262144)
	s.Conntrack.Buckets = 512
	v := Judge(Inputs{Sample: s, Rates: r})[0]
	if v.Kind != verdict.HashChains || !strings.Contains(v.Text(), "average depth 39.1") || !strings.Contains(v.Text(), "raise the hashsize to 16,384 buckets (128 KiB of kernel memory), not max") ||
		!strings.Contains(v.Text(), "the other namespaces' not read") {
		t.Errorf("%s", v)
	}
	// three namespaces of 10,000 entries each: one hash holds them all,
	// so the chains are three times as deep and the fix three times the size
	s.Namespaces = &model.Namespaces{Rows: []model.NetNS{{Inode: 7, Name: "a", Count: 10000}, {Inode: 8, Name: "b", Count: 10000}}}
	v = Judge(Inputs{Sample: s, Rates: r})[0]
	if v.Kind != verdict.HashChains || !strings.Contains(v.Text(), "average depth 117.2 (2 × 30,000 entries of every namespace: this one's 10,000 and the others' 20,000, one hash for all ÷ 512 buckets)") ||
		!strings.Contains(v.Text(), "raise the hashsize to 32,768 buckets") {
		t.Errorf("over three namespaces: %s", v)
	}
}

// TestInsertClashSaysDNS: INSERT CLASH says what the census found of
// UDP/53: DNS lookups racing, none (other flows), or nothing without a
// census.
func TestInsertClashSaysDNS(t *testing.T) {
	drops := idle()
	drops.CTTotal.Set(model.Drop, 5)
	drops.CTTotal.Set(model.InsertFailed, 5)
	s := table(300, 300, 262144)
	s.NAT = &model.NAT{}
	for _, tc := range []struct {
		cen  *model.Census
		want string
	}{
		{&model.Census{TopPorts: []tally.Count{{Key: "tcp/443", N: 90}, {Key: "udp/53", N: 40}}}, "(no source NAT in the ruleset); the census holds 40 UDP/53 entries (DNS lookups) — parallel"},
		{&model.Census{TopPorts: []tally.Count{{Key: "tcp/443", N: 90}}}, "the census holds no UDP/53 entries: flows other than DNS lookups raced"},
		{nil, "(no source NAT in the ruleset) — parallel"},
	} {
		v, ok := ruleInsertClash(Inputs{Sample: s, Rates: drops, Census: tc.cen})
		if !ok || !strings.Contains(v.Text(), tc.want) {
			t.Errorf("%+v: %q, want %q", tc.cen, v.Text(), tc.want)
		}
	}
	full := &model.Census{}
	for p := range model.CensusTop {
		full.TopPorts = append(full.TopPorts, tally.Count{Key: model.DestKey(6, uint16(1000+p)), N: 10})
	}
	if v, _ := ruleInsertClash(Inputs{Sample: s, Rates: drops, Census: full}); strings.Contains(v.Text(), "UDP/53") {
		t.Errorf("a census whose top ports are full may have left UDP/53 out, yet: %q", v.Text())
	}
}

// TestPortsAreJudgedByDestination: the local ports run out towards one
// destination, from the sockets' own tuples: a server holding 30,000
// inbound connections (the host's established count far past the old
// 90 % line) reads no port trouble; a client whose connects to one
// blackholed destination hold the range while the host's TIME_WAIT and
// established totals stay near zero reads PORT EXHAUSTION naming it;
// ports not read say nothing.
func TestPortsAreJudgedByDestination(t *testing.T) {
	portRange := [2]uint64{32768, 60999}
	for _, c := range []struct {
		name  string
		tcp   model.TCP
		ports *model.PortUse
		want  bool
		says  string
	}{
		{"30,000 inbound", model.TCP{Established: 30000, PortRange: portRange}, &model.PortUse{Inbound: 30000}, false, ""},
		{"one destination's connects", model.TCP{Established: 3, PortRange: portRange},
			&model.PortUse{Dests: []model.DestPorts{{Src: "10.0.0.2", Dst: "10.9.9.9:443", Ports: 28000}, {Src: "10.0.0.2", Dst: "10.0.0.5:80", Ports: 20}}, Outbound: 28020}, true, "to 10.9.9.9:443"},
		{"spread over destinations", model.TCP{Established: 28000, PortRange: portRange},
			&model.PortUse{Dests: []model.DestPorts{{Src: "10.0.0.2", Dst: "10.9.9.9:443", Ports: 9000}, {Src: "10.0.0.2", Dst: "10.9.9.8:443", Ports: 9000}}, Outbound: 28000}, false, ""},
		{"not read", model.TCP{TimeWait: 27000, PortRange: portRange}, nil, false, ""},
	} {
		s := table(100, 100, 262144)
		s.TCP, s.Ports = c.tcp, c.ports
		v, ok := rulePortExhaustion(Inputs{Sample: s, Rates: idle()})
		if ok != c.want || !strings.Contains(v.Text(), c.says) {
			t.Errorf("%s: %v %q, want %v with %q", c.name, ok, v.Text(), c.want, c.says)
		}
	}
	if !model.PortsWorthReading(model.TCP{PortRange: portRange}, 14200) || model.PortsWorthReading(model.TCP{TimeWait: 100, PortRange: portRange}, 100) {
		t.Errorf("the read is gated on sockets in use (connects in SYN_SENT too) against half the range")
	}
}

// TestCutToCap: a count or peak read over the cap by no more than the
// allocations in flight (the kernel counted them while refusing them) is
// the cap; one further over is a cap lowered below the live table and is
// kept; a table without a cap read keeps what was read.
func TestCutToCap(t *testing.T) {
	for _, c := range []struct {
		in       model.Conntrack
		inFlight uint64
		want     model.Conntrack
	}{
		{model.Conntrack{Count: 65, Peak: 66, Max: 64}, 2, model.Conntrack{Count: 64, Peak: 64, Max: 64}},
		{model.Conntrack{Count: 65, Peak: 66, Max: 64}, 1, model.Conntrack{Count: 64, Peak: 66, Max: 64}},
		{model.Conntrack{Count: 10, Peak: 64, Max: 64}, 4, model.Conntrack{Count: 10, Peak: 64, Max: 64}},
		{model.Conntrack{Count: 4000, Peak: 4000, Max: 256}, 384, model.Conntrack{Count: 4000, Peak: 4000, Max: 256}},
		{model.Conntrack{Count: 70, Peak: 70}, 4, model.Conntrack{Count: 70, Peak: 70}},
	} {
		if got := c.in.CutToCap(c.inFlight); got != c.want {
			t.Errorf("%+v within %d: %+v, want %+v", c.in, c.inFlight, got, c.want)
		}
	}
}

// TestChainDropsAreLocal: SYNs retransmitted while inserts meet chains
// past the kernel's limit — here or in another namespace, one hash for
// all — are the host dropping them, not a network beyond it
// (lab-hash-chains said CLIENT STALLED ON NETWORK beside HASH CHAINS).
func TestChainDropsAreLocal(t *testing.T) {
	own, other := idle(), idle()
	own.SynRetransPS, other.SynRetransPS = 14, 14
	own.CTTotal.Set(model.ChainTooLong, 40)
	for name, in := range map[string]Inputs{
		"this table":      {Sample: table(200, 200, 4096), Rates: own},
		"other namespace": {Sample: table(200, 200, 4096), Rates: other, ChainNS: []model.FullNS{{NS: model.NetNS{Name: "web-1", Kind: "netns"}, ChainTooLong: 40}}},
	} {
		if got := Judge(in); hasVerdict(got, verdict.ClientStalled) || !hasVerdict(got, verdict.HashChains) {
			t.Errorf("%s: %v", name, got)
		}
	}
}

// TestHashChainsNeverAskFewerBuckets: chains past the limit in a hash of
// more buckets than entries are doubled, never "raised" to fewer.
func TestHashChainsNeverAskFewerBuckets(t *testing.T) {
	r := idle()
	r.CTTotal.Set(model.ChainTooLong, 40)
	v, ok := verdictOf(Judge(Inputs{Sample: table(200, 200, 4096), Rates: r}), verdict.HashChains)
	if !ok || !strings.Contains(v.Text(), "doubling the hashsize to 8,192 buckets") || strings.Contains(v.Text(), "to 256 buckets") {
		t.Errorf("HASH CHAINS at depth 0.1: %s", v.Text())
	}
}
