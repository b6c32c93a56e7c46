package lab

import (
	"sort"
	"time"

	"github.com/tablefull/tablefull/sources/netns"
)

// Scenarios the lab knows, by name.
var Scenarios = byName([]Scenario{
	{Name: "table-full", workers: 8, rate: 160, labMax: 512, dialWait: 10 * time.Second,
		What:    "after 3 s of quiet, 8 clients open one connection per small object (160/s) against an idle server; nf_conntrack_max lowered to 512 over as many buckets (the kernel's proportions at its floor) with a 120 s TIME_WAIT hold",
		LookFor: "count pinned at max, per-CPU drops, SYN retransmits (clients wait 1, 3, 7 s), CPU idle: press t and apply the proposal",
		server:  smallObjects,
		sysctls: timeWaitHold("120")},
	{Name: "healthy", workers: 8, rate: 200, dialWait: 10 * time.Second,
		What:    "the table-full traffic with the table left at its full size",
		LookFor: "no alarm: the count settles well under max, no drops",
		server:  smallObjects,
		sysctls: timeWaitHold("120")},
	{Name: "listen-overflow", workers: 40, burst: time.Second, dialWait: 3 * time.Second,
		What:    "a server that accepts one connection every 50 ms behind a backlog of 4 (somaxconn=4), clients arriving 40 at a time",
		LookFor: "listen overflows and listen drops climb while the conntrack table is fine",
		server:  func() *netns.Server { return &netns.Server{Body: []byte("ok\n"), AcceptDelay: 50 * time.Millisecond} },
		sysctls: map[string]string{"net.core.somaxconn": "4", "net.ipv4.tcp_max_syn_backlog": "4"}},
	{Name: "no-evict", workers: 8, rate: 80, labMax: 512, dialWait: 10 * time.Second, keep: true,
		What:    "a pool that leaks: 8 clients open persistent connections (80/s) and never close them, against a server that keeps them; nf_conntrack_max lowered to 512 over as many buckets",
		LookFor: "count pinned at max, every entry established: drops rise while early_drop stays 0 (nothing to evict); raise max or lower the established timeout, not the TIME_WAIT hold",
		server:  keptOpen},
	{Name: "hash-chains", workers: 16, rate: 2000, labBuckets: 512, dialWait: 3 * time.Second,
		What:    "the table-full traffic at 2,000/s with the table left at its full size but the hashsize lowered to 512 buckets, the kernel's least (restored after)",
		LookFor: "chaintoolong and insert_failed rise while the count is far from max: HASH CHAINS, whose fix is the hashsize (with its memory), not max",
		server:  smallObjects,
		sysctls: timeWaitHold("120")},
	{Name: "nat-ports", workers: 16, rate: 20, dialWait: 3 * time.Second, keep: true,
		What:    "16 clients keep connections open (20/s) through a source NAT into 8 ports (snat to 127.0.0.1:20000-20007), the table at its full size",
		LookFor: "insert_failed and drop rise while the count is far from max: NAT PORTS names the rule and the 8 ports each source–destination pair has; the fix is the pool, not max",
		server:  keptOpen,
		nft: `table ip tft-nat {
	chain post { type nat hook postrouting priority srcnat; oif "lo" tcp dport 18080 snat to 127.0.0.1:20000-20007; }
}`},
	{Name: "stale-timeouts", workers: 8, rate: 40, labMax: 512, dialWait: 10 * time.Second, keep: true, requests: 400,
		What:    "8 clients open 400 persistent connections (40/s) and leave them idle; 8 s in, the established timeout is lowered from 5 days to 60 s; nf_conntrack_max lowered to 512",
		LookFor: "the count does not fall: the census finds the entries keeping the 5-day timeouts given before (STALE TIMEOUTS); they go as theirs run out, or now with conntrack -D",
		server:  keptOpen,
		sysctls: map[string]string{"net.netfilter.nf_conntrack_tcp_timeout_established": "432000"},
		after:   8 * time.Second, later: map[string]string{"net.netfilter.nf_conntrack_tcp_timeout_established": "60"}},
	{Name: "gc-behind", workers: 8, rate: 400, labMax: 1536, hostBuckets: true, dialWait: 3 * time.Second, requests: 800, oneRound: true, Census: true,
		What:    "8 clients make 800 short connections (400/s) and stop, the TIME_WAIT hold lowered to 1 s; nf_conntrack_max lowered to 1,536 over the host's buckets (the collector's pass over a large, sparse hash)",
		LookFor: "the count stays up after the entries expired: the census's dump lists none of them (GC BEHIND); the garbage collector reaps them in its time, a dump at once",
		server:  smallObjects,
		sysctls: timeWaitHold("1")},
	{Name: "gc-pinned", workers: 8, rate: 400, labMax: 1024, hostBuckets: true, dialWait: 3 * time.Second,
		What:    "8 clients open one connection per small object (400/s) with the TIME_WAIT hold lowered to 1 s: 400 entries' worth of demand against nf_conntrack_max lowered to 1,024 over the host's buckets (the collector's pass over a large, sparse hash)",
		LookFor: "pinned though rate × hold is far under max: the entries expire but stay counted until the garbage collector reaps them; TABLE FULL says the census's dump did not list them (a dump reaps them)",
		server:  smallObjects,
		sysctls: timeWaitHold("1")},
	{Name: "clash", workers: 2, dialWait: 3 * time.Second, udp: racingLookups, echo: []string{"127.0.0.1:5353", "127.0.0.2:5353"},
		What:    "2 resolvers send their A and AAAA queries at one instant from one socket, as glibc does, to 127.0.0.53:53, DNAT'd at random to one of two echo servers (nft numgen); the lab's UDP hold lowered to 10 s",
		LookFor: "clash_resolve (the per-CPU clash column) rises while nothing drops: the kernel resolved each race of the two queries for one entry, harmless (kernels from 5.6); before them the race was insert_failed and drop for UDP/53, INSERT CLASH, the 5 s DNS delay",
		sysctls: map[string]string{"net.netfilter.nf_conntrack_udp_timeout": "10"},
		nft: `table ip tft-dnat {
	chain out { type nat hook output priority -100; udp dport 53 dnat to numgen random mod 2 map { 0 : 127.0.0.1, 1 : 127.0.0.2 } : 5353; }
}`},
	{Name: "stale-dnat", workers: 40, dialWait: 3 * time.Second, udp: steadySenders, echo: []string{"127.0.0.1:5353"}, Census: true,
		What:    "40 clients each keep one UDP socket and send on it every 250 ms to 127.0.0.53:53, DNAT'd to a backend (127.0.0.2:5353) that died before the rules were updated; 6 s in, the rule is moved to a live one (127.0.0.1:5353)",
		LookFor: "the clients stay blackholed after the rule moved: their entries still go to the gone backend, none ever answered, each send refreshing them; STALE DNAT names it and conntrack -D -p udp --reply-src 127.0.0.2",
		nft: `table ip tft-dnat {
	chain out { type nat hook output priority -100; udp dport 53 dnat to 127.0.0.2:5353; }
}`,
		after: 6 * time.Second, laterNft: `flush chain ip tft-dnat out
add rule ip tft-dnat out udp dport 53 dnat to 127.0.0.1:5353`},
	{Name: "cpu-bound", workers: 16, dialWait: 10 * time.Second,
		What:    "a table big enough, and a server that burns CPU on every request (the write-up's end state)",
		LookFor: "CPU saturated, no drops: the work itself is the limit",
		server:  func() *netns.Server { return &netns.Server{Body: []byte("ok\n"), Work: burn} }},
})

// byName keys the scenarios by their names, each written once.
func byName(all []Scenario) map[string]Scenario {
	m := make(map[string]Scenario, len(all))
	for _, sc := range all {
		m[sc.Name] = sc
	}
	return m
}

// smallObjects serves one small object per request, as the write-up's
// S3 server does.
func smallObjects() *netns.Server {
	return &netns.Server{Body: []byte("{\"log\":\"a small object\"}\n")}
}

// keptOpen answers every request on a connection it keeps open, as a
// pooled backend does.
func keptOpen() *netns.Server { return &netns.Server{Body: []byte("ok\n"), Keep: true} }

// timeWaitHold is the lab's sysctl that holds a TIME_WAIT entry so many
// seconds.
func timeWaitHold(seconds string) map[string]string {
	return map[string]string{"net.netfilter.nf_conntrack_tcp_timeout_time_wait": seconds}
}

// Names lists the scenarios.
func Names() []string {
	var n []string
	for k := range Scenarios {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// burn spends about 20 ms of CPU, like signature checks on a request.
func burn() {
	x := uint64(1)
	for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
		for i := range 10000 {
			x = x*6364136223846793005 + uint64(i)
		}
	}
	_ = x
}
