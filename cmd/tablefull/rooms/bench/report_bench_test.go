//go:build bench

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// pythonParse is a peer that merely parses every line of a stream with
// Python's C json module.
const pythonParse = `import json, sys
for line in open(sys.argv[1], 'rb'):
    json.loads(line)`

// TestRatioReport prints what `tablefull report` costs, as its own
// process (wall time; peak RSS polled from its VmHWM), against Python's
// C json module merely parsing the same lines, in alternating rounds of
// the same run, medians: an hour of a 384-CPU, 24-disk host (goal ≤ 0.5×
// the parse) and 12 hours of a 2-CPU host (43,200 samples, each judged,
// which costs more than decoding them: goal ≤ 1.25× the parse, 32 MB;
// it was 4.4× before the scanning decoder).
func TestRatioReport(t *testing.T) {
	argv, env := consoleArgv(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3, the peer")
	}
	for _, c := range []struct {
		name          string
		cpus, samples int
		goal          func(wall, rss, parse float64) bool
		goalText      string
	}{
		{"1 h of a 384-CPU host", 384, 3600, func(w, _, p float64) bool { return w <= 0.5*p }, "≤ 0.5× the parse"},
		{"12 h of a 2-CPU host", 2, 12 * 3600, func(w, r, p float64) bool { return w <= 1.25*p && r <= 32 }, "≤ 1.25× the parse, ≤ 32 MB"},
	} {
		path := bigHostStream(t, c.cpus, c.samples)
		st, _ := os.Stat(path)
		var wall, rss, parse []float64
		for i := range 3 {
			start := time.Now()
			if out, err := exec.Command(python, "-c", pythonParse, path).CombinedOutput(); err != nil {
				t.Fatalf("python: %v %s", err, out)
			}
			parse = append(parse, time.Since(start).Seconds())
			cmd := exec.Command(argv[0], append(argv[1:], "report", path, "-o", filepath.Join(t.TempDir(), fmt.Sprint(i)))...)
			cmd.Env = append(os.Environ(), env...)
			// Its own peak, polled from /proc (VmHWM of the new image): a
			// child's rusage maxrss counts this process's memory at the
			// exec, not the report's.
			took, hwm := measure(t, cmd)
			wall = append(wall, took.Seconds())
			rss = append(rss, float64(hwm)/1024)
		}
		w, r, p := median(wall), median(rss), median(parse)
		goal(t, c.goal(w, r, p), "report on %s (%d MB): %.2f s, peak RSS %.1f MB; Python's json parsing it %.2f s: %.2f× (goal %s)",
			c.name, st.Size()>>20, w, r, p, w/p, c.goalText)
		fmt.Printf("    rounds: report %.2f, parse %.2f\n", wall, parse)
	}
}
