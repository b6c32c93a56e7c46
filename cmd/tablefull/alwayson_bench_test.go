//go:build bench

package main

import (
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
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

// scrapeCost is the CPU one scrape of url costs the process pid, in µs:
// CPU over n scrapes, less what it spends idle in the same time.
func scrapeCost(t *testing.T, pid int, url string, n int) float64 {
	idle := msPerSecond(t, pid, 5*time.Second)
	before, start := cpuNanos(t, pid), time.Now()
	for range n {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	busy := cpuNanos(t, pid) - before
	return (busy - idle*1e6*time.Since(start).Seconds()) / float64(n) / 1000
}

// TestRatioAlwaysOn prints what the always-on path costs with the table
// far from its cap at 1 s: the agent and the exporter against a Go program
// that only opens and reads the same files once a second (rounds of 20 s,
// alternating, medians; goal ≤ 1.0 ms/s and ≤ 2× that floor), one scrape
// against node_exporter with only its conntrack, netstat and sockstat
// collectors (goal ≤ 1×), and the exporter's RSS (goal ≤ 20 MB).
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
	const span, rounds = 20 * time.Second, 3
	var agentMS, exporterMS, floorMS []float64
	var rss int
	for range rounds {
		pid, stop := daemon(t, bin, "agent")
		agentMS = append(agentMS, msPerSecond(t, pid, span))
		stop()
		pid, stop = daemon(t, bin, "exporter", "--listen", "127.0.0.1:19874")
		exporterMS = append(exporterMS, msPerSecond(t, pid, span))
		rss = max(rss, statusKB(t, pid, "VmRSS"))
		stop()
		pid, stop = daemon(t, floorBin)
		floorMS = append(floorMS, msPerSecond(t, pid, span))
		stop()
	}
	a, e, f := median(agentMS), median(exporterMS), median(floorMS)
	fmt.Printf("    always on, table far from the cap, 1 s: agent %.2f ms/s, exporter %.2f ms/s (goal ≤ 1.0); raw floor %.2f ms/s: agent %.2f×, exporter %.2f× (goal ≤ 2×)\n",
		a, e, f, a/f, e/f)
	fmt.Printf("    rounds: agent %.2f, exporter %.2f, floor %.2f\n", agentMS, exporterMS, floorMS)
	fmt.Printf("    exporter RSS %.1f MB (goal ≤ 20 MB)\n", float64(rss)/1024)

	ne, err := exec.LookPath("prometheus-node-exporter")
	if err != nil {
		ne, err = exec.LookPath("node_exporter")
	}
	if err != nil {
		fmt.Println("    one scrape: no node_exporter to compare with (apt-get install prometheus-node-exporter)")
		return
	}
	pid, stop := daemon(t, bin, "exporter", "--listen", "127.0.0.1:19874")
	defer stop()
	nePid, neStop := daemon(t, ne, "--web.listen-address=127.0.0.1:19100", "--collector.disable-defaults",
		"--collector.conntrack", "--collector.netstat", "--collector.sockstat")
	defer neStop()
	time.Sleep(2 * time.Second)
	ours := scrapeCost(t, pid, "http://127.0.0.1:19874/metrics", 200)
	theirs := scrapeCost(t, nePid, "http://127.0.0.1:19100/metrics", 200)
	fmt.Printf("    one scrape: exporter %.0f µs, node_exporter (conntrack, netstat, sockstat) %.0f µs: %.2f× (goal ≤ 1×)\n",
		ours, theirs, ours/theirs)
}
