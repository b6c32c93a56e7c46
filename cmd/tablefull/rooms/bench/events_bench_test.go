//go:build bench

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/netns"
)

// TestRatioEvents prints what counting new entries costs the agent while
// the kernel makes about 5,000 of them a second in a namespace near its
// cap, against conntrack -E consuming the same events (NEW and DESTROY)
// in the same run: rounds of 10 s, alternating, medians; goal ≤ 1×.
func TestRatioEvents(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	bin, ns, stats := nearCapChurn(t, "127.0.0.1:18095")
	const span, rounds = 10 * time.Second, 3
	var rates []float64
	agent := func() float64 {
		// subscribed once the first samples see the table near its cap
		ms, rate := measureRound(t, ns, stats, 3*time.Second, span, func(pid int) {
			if !subscribed(pid) {
				t.Errorf("the agent holds no ctnetlink event socket near the cap")
			}
		}, bin, "agent")
		rates = append(rates, rate)
		return ms
	}
	r := alternating(rounds, agent, eventsPeer(t, ns, stats, span))
	ours, theirs := r[0], r[1]
	o, c := median(ours), median(theirs)
	fmt.Printf("    counting new entries at %.0f connections/s: agent %.1f ms/s, conntrack -E -e NEW,DESTROY %.1f ms/s: %.2f× (goal ≤ 1×)\n",
		median(rates), o, c, o/c)
	fmt.Printf("    rounds: agent %.1f, conntrack %.1f\n", ours, theirs)
}

// alternating runs each of measures once a round, in order, for rounds
// rounds, so that a program and its peer meet the same moments of the
// machine; it returns each measure's values, a round each.
func alternating(rounds int, measures ...func() float64) [][]float64 {
	out := make([][]float64, len(measures))
	for range rounds {
		for i, m := range measures {
			out[i] = append(out[i], m())
		}
	}
	return out
}

// eventsPeer is one round of the peer of the agent's events: conntrack -E
// -e NEW,DESTROY in ns, its ms/s over span.
func eventsPeer(t *testing.T, ns *netns.NS, stats *netns.Stats, span time.Duration) func() float64 {
	return func() float64 {
		ms, _ := measureRound(t, ns, stats, time.Second, span, nil, "conntrack", "-E", "-e", "NEW,DESTROY")
		return ms
	}
}

// measureRound runs argv in ns, waits settle, and measures its CPU over
// span and the clients' pace meanwhile; check, when given, asks of its
// pid before it is stopped. One round of a ratio's alternating rounds.
func measureRound(t *testing.T, ns *netns.NS, stats *netns.Stats, settle, span time.Duration, check func(pid int), argv ...string) (msPerS, rate float64) {
	t.Helper()
	pid, end := daemon(t, append([]string{"ip", "netns", "exec", ns.Name}, argv...)...)
	defer end()
	time.Sleep(settle)
	ok0 := stats.OK.Load()
	msPerS = msPerSecond(t, pid, span)
	rate = float64(stats.OK.Load()-ok0) / span.Seconds()
	if check != nil {
		check(pid)
	}
	return msPerS, rate
}

// nearCapChurn is the load of the events and probes benchmarks: a lab
// namespace capped at 16,384 entries, its TIME_WAIT hold 4 s, asked for
// 5,000 new connections a second to a server on addr, past half its cap
// when it returns; and the built binary to measure (skips without it).
func nearCapChurn(t *testing.T, addr string) (bin string, ns *netns.NS, stats *netns.Stats) {
	t.Helper()
	argv, _ := consoleArgv(t)
	if len(argv) != 1 || filepath.Base(argv[0]) != "tablefull" {
		t.Skip("needs the built binary (make bench builds it)")
	}
	clitest.LowerMax(t, 16384)
	ns = clitest.LabNS(t)
	clitest.SetNS(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait", 4) // 4 s × thousands/s: past half the cap
	stats = clitest.Churn(t, ns, addr, netns.Load{Workers: 16, Rate: 5000, DialTimeout: time.Second})
	time.Sleep(6 * time.Second) // the table fills past half its cap
	return argv[0], ns, stats
}

// subscribed reports whether pid holds a NETLINK_NETFILTER socket joined
// to a multicast group: one of its socket inodes as /proc/net/netlink
// lists them with groups set.
func subscribed(pid int) bool {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/netlink", pid))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 10 && f[1] == "12" && f[3] != "00000000" && inodes[f[9]] {
			return true
		}
	}
	return false
}
