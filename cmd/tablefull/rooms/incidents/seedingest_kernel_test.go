package incidents

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// seedRates is the server's pace in each run. Most runs serve the seed's
// own 600 a second, which pins any table the first step raises within a
// few seconds; the last serves 120 a second, slow enough that a raised
// table takes longer than the clients' retry ladder to fill (120/s held
// 120 s is 14,400 entries): a loop that calls 31 quiet seconds freed
// says so there on a count still climbing, and that run fails it.
var seedRates = [...]int{600, 600, 600, 600, 120}

// TestSeedIngestFreedTenfold: the guided loop says freed only when the
// table holds the ingest. In each of 5 runs, on a fresh namespace: an
// ingest pins the table and its pace is counted from nginx's access log
// (the "before"); tune --until-free --yes runs while it goes on; once it
// says freed, the ingest's pace times its entries' hold must fit under
// where the collector evicts (the steady state, measured from outside);
// then that ingest stops and the same ingest is run again, whole, and
// must run at least 10× faster than the pinned one did. A loop that says
// freed on a climbing count (the 31 quiet seconds of the issue) leaves a
// steady state over the cap, and fails this.
func TestSeedIngestFreedTenfold(t *testing.T) {
	// Quiet: the tenfold is the ingest's pace on CPUs it shares; a virtual
	// machine or a build beside it took a run to 6.9× (277/s after, 40/s pinned).
	nstest.Parallel(t, nstest.Claim{Max: clitest.SeedMax, Changes: true, Quiet: true})
	clitest.NeedKernel(t, "nginx", "curl")
	clitest.LowerMax(t, clitest.SeedMax)
	for i, rate := range seedRates {
		t.Run(fmt.Sprint(i+1), func(t *testing.T) {
			origMax := clitest.ReadSysctl(t, nil, knob.Max)
			ns := clitest.LabNS(t)
			dir := t.TempDir()
			seedServer(t, ns, dir, rate)
			log := filepath.Join(dir, "access.log")
			stop := clitest.StartIngestLoop(t, ns)
			clitest.WaitPinned(t, ns, clitest.SeedMax, 60*time.Second)
			from := logLines(t, log)
			time.Sleep(clitest.SeedBeforeWindow)
			beforePS := float64(logLines(t, log)-from) / clitest.SeedBeforeWindow.Seconds()
			state := t.TempDir()
			steps := clitest.FollowUntilFree(t, ns.Name, state)
			// freed means the steady state fits: with the ingest going on at
			// its own pace, now the table lets it in, the namespace's count
			// (read from outside, a hold after the apply: the loop watched
			// one) stays under where the collector evicts. The count, not
			// pace × hold: on loopback a port in TIME_WAIT is reused and its
			// entry made again in place (KERNEL.md), so 600 objects/s held
			// 30 s stand at ~12,800 entries, not 18,000 (CI saw a loop that
			// said freed at 16,384 failed on pace × hold alone).
			// A count still climbing is carried on over a whole hold, as if
			// the hold had only begun: a loop that says freed on a climb
			// (the 31 quiet seconds of the issue) fails here.
			from = logLines(t, log)
			count := func() float64 {
				n, _ := strconv.ParseFloat(clitest.ReadSysctl(t, ns, "net.netfilter.nf_conntrack_count"), 64)
				return n
			}
			first, peak := count(), 0.0
			for end := time.Now().Add(clitest.SeedSteadyWindow); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
				peak = max(peak, count())
			}
			climb := max(0, count()-first) / clitest.SeedSteadyWindow.Seconds()
			paceAfter := float64(logLines(t, log)-from) / clitest.SeedSteadyWindow.Seconds()
			stop()
			hold, _ := strconv.ParseFloat(clitest.ReadSysctl(t, ns, knob.TimeWait), 64)
			capAfter, _ := strconv.ParseUint(clitest.ReadSysctl(t, nil, knob.Max), 10, 64)
			if steady := peak + climb*hold; peak == 0 || steady > float64(model.GCEvictFrom(capAfter)) {
				t.Errorf("the loop said %q, but at %.0f objects/s the count stood at %.0f climbing %.0f/s (held %.0f s: %.0f), over %d (max %d ÷ 100 × 95): not freed",
					steps[len(steps)-1].Said, paceAfter, peak, climb, hold, steady, model.GCEvictFrom(capAfter), capAfter)
			}
			from = logLines(t, log)
			took := timeIngest(t, ns)
			if got := logLines(t, log) - from; got < clitest.SeedObjects {
				t.Fatalf("the ingest after the loop served %d of %d objects", got, clitest.SeedObjects)
			}
			afterPS := clitest.SeedObjects / took.Seconds()
			last := steps[len(steps)-1]
			if w := last.Workload; w != nil && (w.Before.DropsPS == 0 || w.After.NewPS < 2*w.Before.NewPS) {
				t.Errorf("the loop's workload: drops/s %.1f → %.1f, admitted new/s %.1f → %.1f; want drops before it, and the admitted rate multiplied",
					w.Before.DropsPS, w.After.DropsPS, w.Before.NewPS, w.After.NewPS)
			}
			t.Logf("server %d/s; pinned: %.1f objects/s over %s; after %d steps (%s): %d objects in %s, %.0f/s", rate, beforePS, clitest.SeedBeforeWindow, len(steps), last.Said, clitest.SeedObjects, took, afterPS)
			// with none served while pinned, the before is under one per window
			if afterPS < 10*max(beforePS, 1/clitest.SeedBeforeWindow.Seconds()) {
				t.Errorf("after the loop said %q the ingest ran %.0f/s, not 10× the pinned %.1f/s", last.Said, afterPS, beforePS)
			}
			clitest.UndoFromHost(t, ns, state, origMax, knob.TimeWait, "120")
		})
	}
}

// seedServer runs nginx in ns serving one object of seedObjBytes at
// rate a second (limit_req delays the rest, as a busy server does),
// each request logged to dir/access.log.
func seedServer(t *testing.T, ns *netns.NS, dir string, rate int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "obj"), bytes.Repeat([]byte("s"), clitest.SeedObjBytes), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.StartNginx(t, ns, dir, fmt.Sprintf("access_log %s/access.log;\n\tlimit_req_zone $binary_remote_addr zone=ingest:1m rate=%dr/s;", dir, rate),
		fmt.Sprintf("listen 127.0.0.1:18181; root %s; limit_req zone=ingest burst=64;", dir))
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "nginx.pid")); err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatal("nginx did not start")
		}
	}
}

// timeIngest runs one whole ingest and returns how long it took.
func timeIngest(t *testing.T, ns *netns.NS) time.Duration {
	t.Helper()
	cmd := clitest.SeedIngest(ns)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb // the objects after the first come to stdout
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("the ingest: %v: %s", err, errb.String())
	}
	return time.Since(start)
}

// logLines counts the lines of nginx's access log: the objects served.
func logLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}
