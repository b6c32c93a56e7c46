//go:build bench

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRatioReport prints what `tablefull report` costs on a 12-hour
// recording of a 2-CPU host (43,200 samples) and an hour of a 384-CPU
// host: wall time (goal ≤ 5 s each on this 2-core machine) and the
// report process's own peak RSS,
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
			// Its own peak, polled from /proc (VmHWM of the new image): a
			// child's rusage maxrss counts this process's memory at the
			// exec — the recording built here, 500 MB — not the report's.
			took, hwm := measure(t, cmd)
			wall = append(wall, took.Seconds())
			rss = append(rss, float64(hwm)/1024)
		}
		fmt.Printf("    report on %s: %.2f s (goal ≤ 5 s), peak RSS %.1f MB; decoding the file alone %.2f s (%.2f× of it)\n",
			c.name, median(wall), median(rss), median(decode), median(wall)/median(decode))
	}
}
