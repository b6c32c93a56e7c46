//go:build bench

package bench

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// daemon starts argv with stdin a pipe kept open (an agent exits when its
// stdin closes) and stdout discarded; stop ends it.
func daemon(t *testing.T, argv ...string) (pid int, stop func()) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	in, _ := cmd.StdinPipe()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, func() {
		in.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}
}

// msPerSecond is pid's CPU over d after a warm-up, in ms per second.
func msPerSecond(t *testing.T, pid int, d time.Duration) float64 {
	return cpuPercent(t, pid, d) * 10 // % of a core → ms per second
}

// scrapeEvery scrapes each url every period until d has passed.
func scrapeEvery(t *testing.T, period, d time.Duration, urls ...string) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(period) {
		for _, u := range urls {
			resp, err := http.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// goal prints a bench line with its verdict and fails the test when the
// goal is missed: a bench that misses quietly is not measured.
func goal(t *testing.T, met bool, format string, args ...any) {
	t.Helper()
	verdict := "goal met"
	if !met {
		verdict = "GOAL MISSED"
		t.Errorf(format, args...)
	}
	line := fmt.Sprintf(format, args...)
	if strings.HasSuffix(line, ")") {
		line = strings.TrimSuffix(line, ")") + ", " + verdict + ")"
	} else {
		line += " (" + verdict + ")"
	}
	fmt.Println("    " + line)
}

// TestRatioAlwaysOn prints what the always-on path costs with the table
// far from its cap, each against its peer in the same run, side by side,
// alternating rounds, medians, CPU from the schedstat of every thread:
// the agent at 1 s (goal ≤ 500 µs/s), beside a Go program that only
// opens and reads the same files once a second; the exporter against
// node_exporter with the collectors tablefull covers (conntrack, netstat,
// sockstat, stat, diskstats), both scraped at the same instants every
// 15 s over 60 s after a warm-up scrape (goal ≤ 1×), and the exporter's
// peak RSS (goal ≤ 20 MB).
func TestRatioAlwaysOn(t *testing.T) {
	argv, _ := consoleArgv(t)
	if len(argv) != 1 || filepath.Base(argv[0]) != "tablefull" {
		t.Skip("needs the built binary (make bench builds it)")
	}
	bin := argv[0]
	floorBin := filepath.Join(t.TempDir(), "rawfloor")
	if out, err := exec.Command("go", "build", "-o", floorBin, "./testdata/rawfloor").CombinedOutput(); err != nil {
		t.Fatalf("build rawfloor: %v %s", err, out)
	}
	ne, err := exec.LookPath("prometheus-node-exporter")
	if err != nil {
		ne, err = exec.LookPath("node_exporter")
	}
	if err != nil {
		t.Skip("needs node_exporter, the exporter's peer (apt-get install prometheus-node-exporter)")
	}
	const rounds = 3
	var agentMS, floorMS, exporterMS, nodeMS []float64
	var rss, nodeRSS int
	for range rounds {
		pid, stop := daemon(t, bin, "agent")
		floorPid, floorStop := daemon(t, floorBin)
		time.Sleep(2 * time.Second)
		a, f := cpuNanos(t, pid), cpuNanos(t, floorPid)
		time.Sleep(20 * time.Second)
		agentMS = append(agentMS, (cpuNanos(t, pid)-a)/20e6)
		floorMS = append(floorMS, (cpuNanos(t, floorPid)-f)/20e6)
		stop()
		floorStop()

		pid, stop = daemon(t, bin, "exporter", "--listen", "127.0.0.1:19874")
		nePid, neStop := daemon(t, ne, "--web.listen-address=127.0.0.1:19100", "--collector.disable-defaults",
			"--collector.conntrack", "--collector.netstat", "--collector.sockstat", "--collector.stat", "--collector.diskstats")
		urls := []string{"http://127.0.0.1:19874/metrics", "http://127.0.0.1:19100/metrics"}
		time.Sleep(3 * time.Second)
		scrapeEvery(t, time.Second, time.Second, urls...) // the warm-up scrape: Prometheus scrapes for ever
		e, n, start := cpuNanos(t, pid), cpuNanos(t, nePid), time.Now()
		for range 4 { // 60 s, scraped at the same instants every 15 s
			time.Sleep(15 * time.Second)
			scrapeEvery(t, time.Second, time.Second, urls...)
		}
		secs := time.Since(start).Seconds()
		exporterMS = append(exporterMS, (cpuNanos(t, pid)-e)/secs/1e6)
		nodeMS = append(nodeMS, (cpuNanos(t, nePid)-n)/secs/1e6)
		rss, nodeRSS = max(rss, int(clitest.StatusField(pid, "VmHWM:"))), max(nodeRSS, int(clitest.StatusField(nePid, "VmHWM:")))
		stop()
		neStop()
	}
	a, f, e, n := median(agentMS), median(floorMS), median(exporterMS), median(nodeMS)
	goal(t, a <= 0.5, "agent at 1 s, far from the cap: %.0f µs/s (goal ≤ 500 µs/s); the raw floor %.0f µs/s: %.2f×", a*1000, f*1000, a/f)
	fmt.Printf("    rounds: agent %.2f, floor %.2f ms/s\n", agentMS, floorMS)
	goal(t, e <= n, "exporter scraped every 15 s, far from the cap: %.0f µs/s; node_exporter (conntrack, netstat, sockstat, stat, diskstats) scraped alike %.0f µs/s: %.2f× (goal ≤ 1×)", e*1000, n*1000, e/n)
	fmt.Printf("    rounds: exporter %.2f, node_exporter %.2f ms/s\n", exporterMS, nodeMS)
	goal(t, rss <= 20*1024, "exporter peak RSS %.1f MB (%s), node_exporter %.1f MB (goal ≤ 20 MB)", float64(rss)/1024, startupFloor(t, bin), float64(nodeRSS)/1024)
}
