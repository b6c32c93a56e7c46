package kubernetes

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/oneshot"
	"github.com/tablefull/tablefull/sources/cilium/ciliumtest"
)

// TestSnapshotReadsCiliumMaps: with a conntrack map pinned where Cilium
// pins its own, 1,000 entries of 1,024, tablefull snapshot reads it (JSON
// and text) and the console's analyzer names it, the limit Cilium's;
// with none pinned it says nothing of Cilium.
func TestSnapshotReadsCiliumMaps(t *testing.T) {
	clitest.NeedKernel(t)
	sys, globals := ciliumtest.BPFFS(t)
	snapshot := func(args ...string) []byte {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, append([]string{"snapshot", "--sysfs", sys}, args...)...)
		cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("snapshot: %v\n%s", err, out)
		}
		return out
	}
	if out := snapshot(); strings.Contains(string(out), "cilium") {
		t.Errorf("no map pinned, yet:\n%s", out)
	}
	ciliumtest.PinMap(t, filepath.Join(globals, "cilium_ct4_global"), 1024, 1000)
	var snap oneshot.Snapshot
	if err := json.Unmarshal(snapshot("--json"), &snap); err != nil {
		t.Fatal(err)
	}
	c := snap.Sample.Cilium
	if c == nil || len(c.Maps) != 1 || c.Maps[0].Name != "cilium_ct4_global" || c.Maps[0].Entries != 1000 || c.Maps[0].Max != 1024 || len(c.Maps[0].Endpoints) == 0 {
		t.Fatalf("snapshot's Cilium maps: %+v", c)
	}
	if out := snapshot(); !strings.Contains(string(out), "cilium_ct4_global  1,000 of 1,024 entries (98 %): sized by bpf-ct-global-tcp-max") {
		t.Errorf("snapshot text:\n%s", out)
	}
	v := diagnose.NewAnalyzer(2).Add(snap.Sample).Verdict()
	if v.Kind != verdict.CiliumCT || !strings.Contains(v.Text(), "the limit is Cilium's") {
		t.Errorf("verdict %s", v)
	}
}
