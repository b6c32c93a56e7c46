//go:build bench

package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/remote/stream"
)

// bigHostStream writes testdata/bighost's stream of samples samples of a
// host with cpus CPUs and 24 disks and returns its path.
func bigHostStream(t *testing.T, cpus, samples int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("host-%dcpu-%ds.jsonl", cpus, samples))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("go", "run", "./testdata/bighost", "-cpus", fmt.Sprint(cpus), "-samples", fmt.Sprint(samples))
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bighost: %v", err)
	}
	return path
}

// settledRSS runs argv in a 200×50 pane, lets it take its stream in, and
// returns its RSS and peak RSS in MB.
func settledRSS(t *testing.T, argv ...string) (rss, peak float64) {
	pid, socket := paneProcess(t, 200, 50, nil, argv...)
	defer exec.Command("tmux", "-L", socket, "kill-server").Run()
	last := 0
	for range 60 { // until RSS stops growing, at most 30 s
		time.Sleep(500 * time.Millisecond)
		now := int(clitest.StatusField(pid, "VmRSS:"))
		if now > 0 && now-last < 256 && last > 0 {
			break
		}
		last = now
	}
	time.Sleep(2 * time.Second)
	return float64(int(clitest.StatusField(pid, "VmRSS:"))) / 1024, float64(int(clitest.StatusField(pid, "VmHWM:"))) / 1024
}

// TestRatioBigHost prints what an hour of a 384-CPU, 24-disk host at 1 s
// costs the console, live (the stream through --via) and replayed (goal
// ≤ 40 MB RSS each, the medians; it fails on a miss), the ingest rate
// against decoding alone, and the RSS of a 12-hour recording's replay
// (read as it plays).
func TestRatioBigHost(t *testing.T) {
	argv, _ := consoleArgv(t)
	if len(argv) != 1 || filepath.Base(argv[0]) != "tablefull" {
		t.Skip("needs the built binary (make bench builds it)")
	}
	hour := bigHostStream(t, 384, 3600)
	st, _ := os.Stat(hour)
	var live, livePeak, replay, replayPeak []float64
	for range 2 {
		r, p := settledRSS(t, argv[0], "--via", "sh -c 'cat "+hour+"; exec sleep 3600'")
		live, livePeak = append(live, r), append(livePeak, p)
		r, p = settledRSS(t, argv[0], "replay", hour)
		replay, replayPeak = append(replay, r), append(replayPeak, p)
	}
	goal(t, median(live) <= 40 && median(replay) <= 40, "384-CPU, 24-disk host, one hour at 1 s (%d MB of stream): console RSS live %.1f MB (peak %.1f), replayed %.1f MB (peak %.1f) (goal ≤ 40 MB each)",
		st.Size()>>20, median(live), slices.Max(livePeak), median(replay), slices.Max(replayPeak))

	decodeOnly := ingest(t, hour, nil)
	an := diagnose.NewAnalyzer(3600)
	both := ingest(t, hour, an)
	fmt.Printf("    ingest: %.0f samples/s decoded and analysed, %.0f samples/s decoded alone (%.2f× of decoding); %.1f ms a sample\n",
		both, decodeOnly, both/decodeOnly, 1000/both)

	long := bigHostStream(t, 2, 12*3600)
	r, p := settledRSS(t, argv[0], "replay", long)
	fmt.Printf("    a 12-hour recording of a 2-CPU host replays in %.1f MB RSS (peak %.1f): the console reads it as the view moves\n", r, p)
}

// ingest decodes the stream at path (and analyses it when an is set) and
// returns samples per second.
func ingest(t *testing.T, path string, an *diagnose.Analyzer) float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := stream.NewDecoder(f)
	if err := d.Header(); err != nil {
		t.Fatal(err)
	}
	start, n := time.Now(), 0
	for {
		s, _, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if s != nil && an != nil {
			an.Add(*s)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds()
}
