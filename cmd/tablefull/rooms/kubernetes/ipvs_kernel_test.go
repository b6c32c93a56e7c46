package kubernetes

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
)

// TestIPVSNotPresentHere: on a kernel without ip_vs loaded, tablefull
// snapshot says IPVS is not present, in its JSON and its text, never an
// empty table (the boot test's guest reads a loaded one:
// checkGuestIPVS).
func TestIPVSNotPresentHere(t *testing.T) {
	clitest.NeedKernel(t)
	if _, err := os.Stat("/proc/net/ip_vs"); err == nil {
		t.Skip("ip_vs is loaded here")
	}
	snapshot := func(args ...string) string {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, append([]string{"snapshot"}, args...)...)
		cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		return string(out)
	}
	var snap struct {
		Sample model.Sample `json:"sample"`
	}
	if err := json.Unmarshal([]byte(snapshot("--json")), &snap); err != nil || snap.Sample.IPVS == nil || snap.Sample.IPVS.Present {
		t.Errorf("IPVS read as %+v (%v)", snap.Sample.IPVS, err)
	}
	if text := snapshot(); !strings.Contains(text, "ipvs") || !strings.Contains(text, "not present (ip_vs not loaded)") {
		t.Errorf("snapshot's text:\n%s", text)
	}
}
