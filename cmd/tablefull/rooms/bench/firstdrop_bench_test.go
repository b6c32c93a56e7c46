//go:build bench

package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestRatioFirstDrop prints, for make bench, the time from the first
// packet a table drops to the agent's sample that says it, the built
// binary's, median of three incidents (goal ≤ 200 ms: one fast tick and
// the time to read and send the sample).
func TestRatioFirstDrop(t *testing.T) {
	clitest.NeedKernel(t)
	argv, env := consoleArgv(t)
	var took []time.Duration
	for range 3 {
		var d time.Duration
		t.Run("incident", func(t *testing.T) { d = clitest.FirstDropLatency(t, argv, env) })
		took = append(took, d)
	}
	m := medianDuration(took)
	goal(t, m <= 200*time.Millisecond, "first dropped packet → its sample from the agent at 1 s: %s (median of %v; goal ≤ 200 ms)", m.Round(time.Millisecond), fmt.Sprint(took))
}
