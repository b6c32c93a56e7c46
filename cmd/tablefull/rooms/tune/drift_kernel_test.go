package tune

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/counters"
)

// TestPersistDriftBuiltin, on this machine's built-in nf_conntrack: tune
// --persist says built-in and writes the sysctl.d file and the tmpfiles.d
// line for the hashsize (no modprobe.d, no udev rule); the boot-time
// mechanism itself (systemd-tmpfiles --create) writes that hashsize; a
// live value changed behind tablefull's back is drift in tune, on the
// console, in the exporter's metric and its alert (pending on a real
// Prometheus: it fires after 5 minutes, as promtool's test shows); undo
// removes every file. The knobs are restored whatever happens.
func TestPersistDriftBuiltin(t *testing.T) {
	clitest.NeedKernel(t, "systemd-tmpfiles", "tmux", "prometheus")
	if counters.ReadConntrackBuild("/sys") != "built-in" {
		t.Skip("nf_conntrack is a module here: the boot test covers it")
	}
	origMax := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	origHash, _ := os.ReadFile(clitest.HashsizePath)
	t.Cleanup(func() {
		os.WriteFile(clitest.MaxPath, []byte(origMax), 0o644)
		os.WriteFile(clitest.HashsizePath, origHash, 0o644)
	})
	hash, _ := strconv.Atoi(strings.TrimSpace(string(origHash)))
	newHash := strconv.Itoa(hash / 2)
	etc := filepath.Join(t.TempDir(), "etc")
	flags := []string{"--etc", etc, "--state-dir", t.TempDir()}

	code, out := clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000", "--set", "nf_conntrack.hashsize=" + newHash, "--yes", "--persist"}, flags...)...)
	if code != 0 || !strings.Contains(out, "nf_conntrack is built in") {
		t.Fatalf("persist: code %d\n%s", code, out)
	}
	for _, f := range []string{"sysctl.d/99-tablefull.conf", "tmpfiles.d/tablefull.conf"} {
		if !strings.Contains(out, "written: "+filepath.Join(etc, f)) {
			t.Errorf("tune does not list %s as written:\n%s", f, out)
		}
	}
	for _, f := range []string{"modprobe.d/tablefull.conf", "udev/rules.d/99-tablefull-conntrack.rules"} {
		if _, err := os.Stat(filepath.Join(etc, f)); err == nil {
			t.Errorf("%s written for a built-in nf_conntrack", f)
		}
	}

	// What runs at every boot writes the persisted hashsize.
	os.WriteFile(clitest.HashsizePath, origHash, 0o644)
	if out, err := osexec.Command("systemd-tmpfiles", "--create", filepath.Join(etc, "tmpfiles.d", "tablefull.conf")).CombinedOutput(); err != nil {
		t.Fatalf("systemd-tmpfiles --create: %v %s", err, out)
	}
	if b, _ := os.ReadFile(clitest.HashsizePath); strings.TrimSpace(string(b)) != newHash {
		t.Errorf("after systemd-tmpfiles the hashsize is %s, want the persisted %s", b, newHash)
	}

	// Behind tablefull's back: the live max goes back.
	os.WriteFile(clitest.MaxPath, []byte("262144"), 0o644)
	want := "persisted nf_conntrack_max 300000, live 262144 — the persisted value did not apply"
	if code, out := clitest.TuneIn(t, nil, append([]string{"--dry-run"}, flags...)...); !strings.Contains(out, "drift: "+want) {
		t.Errorf("tune does not say the drift (code %d):\n%s", code, out)
	}

	addr, _ := clitest.StartHostExporter(t, "--interval", "500ms", "--etc", etc)
	metric := `tablefull_tuning_drift{knob="net.netfilter.nf_conntrack_max"} 1`
	for end := time.Now().Add(5 * time.Second); !strings.Contains(clitest.MetricsText(t, addr), metric); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the exporter has no %s:\n%s", metric, clitest.MetricsText(t, addr))
		}
	}
	prom, _ := clitest.StartPrometheus(t, addr)
	var pending map[string]float64
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && len(pending) == 0; time.Sleep(time.Second) {
		pending = clitest.Vector(t, prom, `ALERTS{alertname="ConntrackTuningDrift"}`, "knob")
	}
	if len(pending) != 1 || pending["net.netfilter.nf_conntrack_max"] != 1 {
		t.Errorf("ConntrackTuningDrift for %v, want nf_conntrack_max alone", pending)
	}

	s := clitest.StartTmux(t, 80, 24, "", "--etc", etc)
	s.WaitFor("drift persisted nf_conntrack_max 300000, live 262144")
	s.Keys("q")
	s.WaitFor("EXIT=0")

	if code, out := clitest.TuneIn(t, nil, append([]string{"--undo"}, flags...)...); code != 0 {
		t.Fatalf("undo: code %d\n%s", code, out)
	}
	for _, f := range []string{"sysctl.d/99-tablefull.conf", "tmpfiles.d/tablefull.conf"} {
		if _, err := os.Stat(filepath.Join(etc, f)); err == nil {
			t.Errorf("undo left %s", f)
		}
	}
}
