//go:build bench

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRatioReport prints what `tablefull report` costs on a 12-hour
// recording of a 2-CPU host (43,200 samples) and an hour of a 384-CPU
// host: wall time (goal ≤ 5 s each on this 2-core machine) and peak RSS,
// against decoding the same file alone, measured in the same run
// (medians of three alternating rounds).
func TestRatioReport(t *testing.T) {
	argv, env := consoleArgv(t)
	for _, c := range []struct {
		name          string
		cpus, samples int
	}{
		{"12 h of a 2-CPU host", 2, 12 * 3600},
		{"1 h of a 384-CPU host", 384, 3600},
	} {
		path := bigHostStream(t, c.cpus, c.samples)
		var wall, rss, decode []float64
		for i := range 3 {
			start := time.Now()
			ingest(t, path, nil)
			decode = append(decode, time.Since(start).Seconds())
			cmd := exec.Command(argv[0], append(argv[1:], "report", path, "-o", filepath.Join(t.TempDir(), fmt.Sprint(i)))...)
			cmd.Env = append(os.Environ(), env...)
			start = time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("report: %v\n%s", err, out)
			}
			wall = append(wall, time.Since(start).Seconds())
			rss = append(rss, float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)/1024)
		}
		fmt.Printf("    report on %s: %.2f s (goal ≤ 5 s), peak RSS %.1f MB; decoding the file alone %.2f s (%.2f× of it)\n",
			c.name, median(wall), median(rss), median(decode), median(wall)/median(decode))
	}
}
