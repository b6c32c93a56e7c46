package incidents

import (
	"os"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestFirstDropOnScreenWithinAFastTick: on the kernel, a table at real
// proportions (max = buckets = 512) filled by fresh connections; the
// agent in its namespace streams samples at 1 s. The first packet the
// table drops — seen by the test reading the namespace's own counters
// every millisecond — arrives as a sample with its drop within 250 ms
// (a fast tick, and the time to read and send it), not at the end of the
// interval it fell in.
func TestFirstDropOnScreenWithinAFastTick(t *testing.T) {
	clitest.NeedKernel(t)
	exe, _ := os.Executable()
	took := clitest.FirstDropLatency(t, []string{exe}, []string{"TABLEFULL_AS_MAIN=1"})
	if took > 250*time.Millisecond {
		t.Errorf("the first drop arrived %v after it, want within a fast tick (≤ 250 ms)", took)
	}
}
