//go:build bench

package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestRatioEntries measures the entries view on a full table of 262,144
// entries (make bench): tablefull entries (its first screen of rows, every
// entry counted) beside conntrack -L on the same table, wall and peak RSS;
// then the console's E in a 200×50 pane. Goals: tablefull entries in at
// most half conntrack -L's time and twice its peak RSS (both stream the
// table); the console's first screen within 1 s and its peak RSS within
// its 30 MB.
func TestRatioEntries(t *testing.T) {
	clitest.NeedKernel(t, "conntrack", "tmux")
	const n = 262144
	ns := fullTable(t, n)
	argv, env := consoleArgv(t)
	if len(env) > 0 {
		t.Skip("needs the built binary (make bench builds it): the test binary's own footprint is not the program's")
	}
	var ourWall, peerWall []time.Duration
	var ourRSS, ourAnon, peerRSS int64
	for range 3 { // alternating rounds, medians
		w, r := measure(t, ns.Command("conntrack", "-L"))
		peerWall, peerRSS = append(peerWall, w), max(peerRSS, r)
		w, r, a := measureMem(t, ns.Command(argv[0], "entries"))
		ourWall, ourRSS, ourAnon = append(ourWall, w), max(ourRSS, r), max(ourAnon, a)
	}
	ours, peer := medianDuration(ourWall), medianDuration(peerWall)
	goal(t, ours <= time.Second && ours <= peer/2, "tablefull entries over %d entries: %s, conntrack -L %s: %.2f× (goal: ≤ 0.5×, the first screen ≤ 1 s)", n,
		ours.Round(time.Millisecond), peer.Round(time.Millisecond), ours.Seconds()/peer.Seconds())
	goal(t, ourRSS <= 2*peerRSS, "tablefull entries peak RSS %.1f MB (private %.1f MB; %s), conntrack -L %.1f MB: %.1f× (goal ≤ 2×: rows kept, not the table)",
		float64(ourRSS)/1024, float64(ourAnon)/1024, startupFloor(t, argv[0]), float64(peerRSS)/1024, float64(ourRSS)/float64(peerRSS))

	s := clitest.StartTmuxArgv(t, 200, 50, []string{"ip", "netns", "exec", ns.Name, argv[0]})
	s.WaitWithin(20*time.Second, "LIVE")
	pid := programIn(t, argv[0])
	start := time.Now()
	s.Keys("E")
	s.WaitWithin(10*time.Second, "entries 262,144 match")
	first := time.Since(start)
	goal(t, first <= time.Second, "the console's E over %d entries: first screen in %s (goal ≤ 1 s)", n, first.Round(time.Millisecond))
	time.Sleep(6 * time.Second) // the panel lists again every 5 s: its peak is of two walks, not one
	rss := vmHWM(pid)
	goal(t, rss <= 30*1024, "the console with E open over %d entries: peak RSS %.1f MB (goal ≤ 30 MB, the console's)", n, float64(rss)/1024)
	s.Keys("q")
}

// programIn is the pid of the one process running exe (the pane's shell
// runs it as its child, through ip netns exec).
func programIn(t *testing.T, exe string) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, d := range dirs {
		if target, err := os.Readlink(d); err == nil && target == exe {
			pid, _ := strconv.Atoi(strings.Split(d, "/")[2])
			return pid
		}
	}
	t.Fatalf("no process runs %s", exe)
	return 0
}
