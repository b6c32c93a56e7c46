package kubernetes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/remote/exporter"
	"github.com/tablefull/tablefull/remote/recording"
	"github.com/tablefull/tablefull/sources/netns/nstest"
	"github.com/tablefull/tablefull/sources/pods/critest"
)

// holdUDP is a process that opens argv[1] UDP sockets, sends from each
// to argv[2]:9 and keeps them (entries its sockets own), then asks for a
// new entry every 100 ms: a full table keeps dropping.
const holdUDP = `import socket, sys, time
def send(s):
    try:
        s.sendto(b"x", (sys.argv[2], 9))
    except OSError:
        pass
held = []
for _ in range(int(sys.argv[1])):
    held.append(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
    send(held[-1])
while True:
    time.sleep(0.1)
    held.append(socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
    send(held[-1])
`

// TestPodNamedByContainerd: Debian's containerd, with its CRI plugin and
// CNI's bridge, runs a pod sandbox from a pause image built here, and a
// process of the pod fills the pod's table (its network namespace, at a
// cap of 256). Where the runtime's socket is, and no kubelet directory
// names the pod, tablefull names it kube-system/coredns-… from the
// runtime over CRI: in snapshot's namespaces room, in the host's TABLE
// FULL verdict, in the exporter's namespace labels, and as the owner of
// the entries in the census of the pod's table.
func TestPodNamedByContainerd(t *testing.T) {
	clitest.NeedKernel(t, "python3", "nsenter")
	cgroupRoot := nstest.NeedCgroupV2(t)
	c := critest.StartContainerd(t)
	const name = "kube-system/coredns-5d78c9869d-xyzzy"
	sb := critest.Sandbox{Name: "coredns-5d78c9869d-xyzzy", Namespace: "kube-system", UID: "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
		CgroupParent: "/kubepods/besteffort/pod7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"}
	id := c.RunSandbox(t, sb)
	pid := critest.PID(t, id)
	exe, _ := os.Executable()
	inPod := func(args ...string) []string {
		return append([]string{"--net=/proc/" + strconv.Itoa(pid) + "/ns/net"}, args...)
	}

	snap := c.Command(exe, "snapshot", "--json")
	snap.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	if label := podRowLabel(t, snap, pid); label != "pod "+name {
		t.Errorf("the sandbox's namespace is named %q in the namespaces room", label)
	}

	clitest.LowerMax(t, 256)
	// a pod's table is made once a rule asks for tracking there, as a CNI's
	// or a policy's does
	track := exec.Command("nsenter", inPod("nft", "add table inet tablefull_test; add chain inet tablefull_test out { type filter hook output priority 0; ct state new counter; }")...)
	if out, err := track.CombinedOutput(); err != nil {
		t.Fatalf("nft in the pod: %v: %s", err, out)
	}
	// the filler runs in the pod's cgroup, as a container of the pod would
	podCg := ""
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	for _, l := range strings.Split(string(cg), "\n") {
		if rel, ok := strings.CutPrefix(l, "0::"); ok {
			podCg = filepath.Join(cgroupRoot, rel)
		}
	}
	dir, err := os.Open(podCg)
	if err != nil {
		t.Fatalf("the pod's cgroup: %v", err)
	}
	defer dir.Close()
	nstest.StartIn(t, dir, c.Command("nsenter", inPod("python3", "-c", holdUDP, "300", "127.0.0.1")...))

	// python's start in the pod takes its time on a loaded machine: the
	// census is read again until it counts the filler's entries (the pod's
	// table at its cap); from then on every entry's socket exists, and an
	// owner not found is the walk's miss, not the test's haste
	var cen model.Census
	for deadline := time.Now().Add(60 * time.Second); ; {
		census := c.Command("nsenter", inPod(exe, "census", "--json")...)
		census.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
		out, err := census.Output()
		cen = model.Census{}
		if err != nil || json.Unmarshal(out, &cen) != nil || cen.Owners == nil {
			t.Fatalf("census in the pod: %v %s", err, out)
		}
		if cen.Total >= 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if cen.Total < 200 {
		t.Fatalf("the pod's table holds %d entries after a minute: the filler did not fill it", cen.Total)
	}
	if len(cen.Owners.Top) == 0 || cen.Owners.Top[0].Owner.Group != name || cen.Owners.Top[0].Owner.Kind != "pod" {
		t.Errorf("the pod's %d entries are owned by %+v (%+v)", cen.Total, cen.Owners.Top, *cen.Owners)
	}

	rec := filepath.Join(t.TempDir(), "node.jsonl")
	record := c.Command(exe, "record", rec, "--interval", "500ms")
	record.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	clitest.StartUntilEnd(t, record)
	time.Sleep(4 * time.Second)
	got, err := recording.ReadRecording(bytes.NewReader(clitest.StopRecording(t, record, rec)))
	if err != nil {
		t.Fatal(err)
	}
	e := exporter.New("test")
	an := diagnose.NewAnalyzer(len(got.Samples))
	full := ""
	for _, s := range got.Samples {
		e.Observe(s)
		for _, v := range an.Add(s).Verdicts {
			if v.Kind == verdict.TableFull && v.Table != "" {
				full = v.Table + ": " + v.Text()
			}
		}
	}
	if !strings.Contains(full, "pod "+name) {
		t.Errorf("the host's TABLE FULL does not name the pod: %q", full)
	}
	srv := httptest.NewServer(exporter.Handler(e, "/metrics"))
	defer srv.Close()
	if body := clitest.ScrapeText(t, srv.URL+"/metrics"); !strings.Contains(body, fmt.Sprintf(`netns=%q`, name)) {
		t.Errorf("the exporter's namespace series do not name the pod:\n%s", clitest.GrepLines(body, "tablefull_netns"))
	}
}

// podRowLabel runs snapshot and returns the label of the namespaces
// room's row of process pid ("" when none).
func podRowLabel(t *testing.T, snap interface{ Output() ([]byte, error) }, pid int) string {
	t.Helper()
	out, err := snap.Output()
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	var s struct {
		Sample model.Sample `json:"sample"`
	}
	if err := json.Unmarshal(out, &s); err != nil || s.Sample.Namespaces == nil {
		t.Fatalf("snapshot: %v", err)
	}
	for _, r := range s.Sample.Namespaces.Rows {
		if r.PID == pid {
			return r.Label()
		}
	}
	return ""
}
