package lab

import (
	"os"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/lab"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// fullSizeEntries is the most entries the full-size scenarios' lab
// namespace holds at once: the healthy churn's TIME_WAIT (200/s for 8 s,
// held 120 s) and less for the others.
const fullSizeEntries = 2048

// TestLabScenariosAtFullSize: the scenarios that leave the table at its
// full size and change no global knob (their sysctls, rules and servers
// are the lab namespace's own), and whose verdicts outrank a busy CPU's
// (or, healthy, allow for one), say their verdicts beside the tests that
// set the cap, as TestLabScenarios's do alone, and leave nothing of the
// lab behind. The cap they meet is whatever those tests set (never under
// twice what the lab holds): their verdicts are about their own
// namespace's table, not the host's.
func TestLabScenariosAtFullSize(t *testing.T) {
	nstest.Parallel(t, nstest.Claim{Entries: fullSizeEntries})
	clitest.NeedKernel(t)
	t.Run("listen-overflow", func(t *testing.T) {
		if lines := labUntil(t, "listen-overflow", "8s", saying("LISTEN OVERFLOW")); !saying("LISTEN OVERFLOW")(lines) {
			t.Errorf("no LISTEN OVERFLOW in:\n%s", strings.Join(lines, "\n"))
		}
		clitest.LabGone(t)
	})
	t.Run("nat-ports", func(t *testing.T) {
		saysNotFull(t, "nat-ports", "9s", "NAT PORTS",
			"snat to 127.0.0.1:20000-20007 in ip tft-nat post (8 ports for each source–destination pair)", "widen its ports",
			"the census's busiest destination 127.0.0.1", "to it in TIME_WAIT (")
		clitest.LabGone(t)
	})
	t.Run("healthy", func(t *testing.T) {
		// no verdict to wait for: a false alarm may come at any sample
		for _, l := range labLines(t, "healthy", "8s") {
			if busyMachine(t, l) {
				continue
			}
			if !strings.Contains(l, `verdict="OK"`) {
				t.Errorf("false alarm: %s", l)
			}
		}
		clitest.LabGone(t)
	})
}

// TestEveryScenarioTested: each scenario the lab knows is run by
// TestLabScenarios or TestLabScenariosAtFullSize, read from their source
// as t.Run names: a scenario added to the lab is not left untested.
func TestEveryScenarioTested(t *testing.T) {
	var src strings.Builder
	for _, f := range []string{"lab_scenarios_kernel_test.go", "lab_fullsize_kernel_test.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for name := range lab.Scenarios {
		if !strings.Contains(src.String(), `t.Run("`+name+`", func(t *testing.T) {`) {
			t.Errorf("the lab's %s scenario is run by no test", name)
		}
	}
}
