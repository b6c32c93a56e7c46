package clitest

import (
	"fmt"
	"math"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/netns"
)

// The seed's incident at its proportions: 6,600 objects of 1.4 KB, each
// over a fresh connection, from 8 workers, against a server whose table
// is max = buckets = 4,096. The server serves a set number of objects a
// second (an nginx rate limit: the server's own pace, not the table's).
const (
	SeedObjects  = 6600
	SeedObjBytes = 1400
	SeedWorkers  = 8
	SeedMax      = 4096
	// seedBeforeWindow is how long the pinned ingest's pace is counted:
	// long enough that one pass of the collector, which frees a twentieth
	// of the table at once (KERNEL.md: down to max ÷ 100 × 95) and comes
	// up to a minute apart, is not read as the pace (CI once counted 339
	// objects in 5 s, 68/s, where the pinned pace is a few a second).
	SeedBeforeWindow = 10 * time.Second
	// seedSteadyWindow is how long the freed ingest's pace is counted.
	SeedSteadyWindow = 3 * time.Second
)

// SeedIngest is curl fetching the seed's objects, seedWorkers at a time,
// a fresh connection each (the server closes it).
func SeedIngest(ns *netns.NS) *exec.Cmd {
	return ns.Command("curl", "-s", "--parallel", "--parallel-max", fmt.Sprint(SeedWorkers), "-H", "Connection: close",
		"-o", "/dev/null", fmt.Sprintf("http://127.0.0.1:18181/obj?[1-%d]", SeedObjects))
}

// StartIngestLoop runs the ingest again and again (an ingest that retries
// until it is done) until stop is called or the test ends.
func StartIngestLoop(t *testing.T, ns *netns.NS) (stop func()) {
	t.Helper()
	args := strings.Join(SeedIngest(ns).Args, "' '")
	cmd := exec.Command("sh", "-c", "while :; do '"+args+"' >/dev/null 2>&1; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return stop
}

// IngestPass is one recording of the ingest and the objects nginx served
// over the recording's span, by its own log.
type IngestPass struct {
	Path   string
	Served float64 // objects a second
}

// IngestPaths are the passes' paths, in order.
func IngestPaths(ps []IngestPass) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Path
	}
	return out
}

// IngestRates are the passes' rates, in order.
func IngestRates(ps []IngestPass) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = math.Round(p.Served*10) / 10
	}
	return out
}
