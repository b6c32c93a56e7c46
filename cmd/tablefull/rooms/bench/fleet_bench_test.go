//go:build bench

package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	fleetmodel "github.com/tablefull/tablefull/model/fleet"
	"github.com/tablefull/tablefull/remote/promread"
)

// TestRatioFleet prints the fleet view's cost over a real Prometheus
// holding 1,000 instances: queries per refresh (goal ≤ 7, fixed whatever the fleet), their answer
// time, the console's RSS (goal ≤ 64 MB), and a drill-down into 6 h of one
// instance at 15 s (goal on screen within 1 s of the answer).
func TestRatioFleet(t *testing.T) {
	argv, _ := consoleArgv(t)
	if len(argv) != 1 || filepath.Base(argv[0]) != "tablefull" {
		t.Skip("needs the built binary (make bench builds it)")
	}
	now := time.Now()
	url := clitest.PrometheusOver(t, clitest.SyntheticFleet{N: 1000, Now: now, Points: 120, Step: 15 * time.Second})
	r, err := promread.New(promread.Config{URL: url, Selector: `job="tablefull"`, Window: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	page, err := r.Fleet(context.Background(), now, fleetmodel.View{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("    fleet of 1,000 instances: %d queries a refresh (goal ≤ 7), %d bytes, answered in %d ms\n", page.Cost.Queries, page.Cost.Bytes, time.Since(start).Milliseconds())
	pid, socket := paneProcess(t, 200, 50, nil, argv[0], "--prometheus", url, "--selector", `job="tablefull"`, "--since", "30m")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out, _ := exec.Command("tmux", "-L", socket, "capture-pane", "-p").Output()
		if strings.Contains(string(out), clitest.FleetInstance(7)) {
			break
		}
	}
	time.Sleep(time.Second)
	fmt.Printf("    the fleet view of 1,000 instances: RSS %.1f MB (goal ≤ 64 MB)\n", float64(clitest.StatusField(pid, "VmRSS:"))/1024)

	long := clitest.PrometheusOver(t, clitest.SyntheticFleet{N: 1, Now: now, Points: 6 * 240, Step: 15 * time.Second})
	lr, _ := promread.New(promread.Config{URL: long, Window: 6 * time.Hour})
	start = time.Now()
	_, samples, err := lr.History(context.Background(), clitest.FleetInstance(0), now, 6*time.Hour, 0)
	if err != nil {
		t.Fatal(err)
	}
	answered := time.Since(start)
	fmt.Printf("    drill-down into 6 h at 15 s: %d samples, Prometheus answered in %d ms\n", len(samples), answered.Milliseconds())
}
