package entries

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestCensusSplitsZones: entries the kernel holds in conntrack zones (as
// OVS and some CNIs make them) are split by zone in the census, its text
// and the census that travels on the agent's stream; the default zone is
// among them.
func TestCensusSplitsZones(t *testing.T) {
	clitest.NeedKernel(t, "conntrack")
	ns := clitest.LabNS(t)
	flows := clitest.KnownMix() // 150 established, 70 TIME_WAIT, 30 UDP
	for i := range flows {
		switch {
		case i < 150:
			flows[i].Zone = 5
		case i >= 220:
			flows[i].Zone = 7
		}
	}
	if err := ns.Insert(flows); err != nil {
		t.Fatal(err)
	}
	want := "[{zone 5 150} {zone 0 70} {zone 7 30}]"
	c := clitest.CensusIn(t, ns)
	if got := fmt.Sprint(c.TopZones); got != want {
		t.Errorf("census zones %s, want %s", got, want)
	}
	if _, err := os.Stat("/sys/module/openvswitch"); err != nil && (c.ZoneLimits != nil || !strings.Contains(c.ZoneLimitsNote, "openvswitch module is not loaded")) {
		t.Errorf("no openvswitch here, yet zone limits %+v, note %q", c.ZoneLimits, c.ZoneLimitsNote)
	}
	exe, _ := os.Executable()
	cmd := ns.Command(exe, "census")
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "conntrack zones:") || !strings.Contains(string(out), "zone 5") || !strings.Contains(string(out), "zone limits: ") {
		t.Errorf("census text (%v):\n%s", err, out)
	}
	viaAgent := censusViaAgent(t, ns)
	if viaAgent == nil || fmt.Sprint(viaAgent.TopZones) != want {
		t.Errorf("census through the agent: %+v", viaAgent)
	}
}
