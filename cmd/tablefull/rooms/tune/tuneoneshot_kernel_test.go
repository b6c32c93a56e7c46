package tune

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// TestDryRunByHandFreesTheTable: tune --dry-run --json run three times
// during one pin, each plan applied by hand between (tune --set … --yes,
// which records the step), frees the table within the three: each dry
// run says while pinned that its demand is a lower bound, and after a
// step sizes the next on the step's record, not a doubling.
func TestDryRunByHandFreesTheTable(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Max: panelIncidents[0].cap, Changes: true})
	clitest.NeedKernel(t, "conntrack", "redis-server", "redis-benchmark")
	ns := panelIncidents[0].pin(t, nil)
	state := filepath.Join(t.TempDir(), "state")
	for step := 1; step <= 3; step++ {
		code, out, errs := clitest.TuneFromHost(t, ns.Name, "--dry-run", "--json", "--observe", "3s", "--state-dir", state)
		var report struct {
			Plan tuning.Plan `json:"plan"`
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil || code != 0 {
			t.Fatalf("step %d: dry run exit %d: %v: %s%s", step, code, err, out, errs)
		}
		p := report.Plan
		if p.Empty() || len(p.Notes) == 0 {
			t.Fatalf("step %d: pinned, and the dry run proposes %+v", step, p)
		}
		if step > 1 && !strings.Contains(strings.Join(p.Notes, " "), "the last step raised the cap") {
			t.Errorf("step %d is not sized on the last step: %v", step, p.Notes)
		}
		t.Logf("step %d: %v %v", step, p.Changes, p.Notes)
		args := []string{"--yes", "--state-dir", state}
		for _, c := range p.Changes {
			args = append(args, "--set", c.Key+"="+c.Proposed)
		}
		if code, out, errs := clitest.TuneFromHost(t, ns.Name, args...); code != 0 {
			t.Fatalf("step %d: apply by hand: exit %d: %s%s", step, code, out, errs)
		}
		if clitest.Freed(t, nil, ns, 20*time.Second) {
			if pct := tuning.MemoryCost(clitest.MustUint(t, clitest.ReadSysctl(t, nil, knob.Max)), 0, 0, clitest.MemTotal(t)).PctOfRAM; pct > tuning.MemWarnPct {
				t.Errorf("freed at %.1f %% of RAM", pct)
			}
			t.Logf("freed after %d dry runs at %s", step, clitest.ReadSysctl(t, nil, knob.Max))
			if code, out, errs := clitest.TuneFromHost(t, ns.Name, "--undo", "--state-dir", state); code != 0 || clitest.ReadSysctl(t, nil, knob.Max) != "500" {
				t.Errorf("undo: exit %d %s%s", code, out, errs)
			}
			return
		}
		clitest.WaitPinned(t, ns, clitest.MustUint(t, clitest.ReadSysctl(t, nil, knob.Max)), 30*time.Second)
	}
	t.Fatalf("still pinned after three dry runs applied by hand (max %s)", clitest.ReadSysctl(t, nil, knob.Max))
}
