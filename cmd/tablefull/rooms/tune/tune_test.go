package tune

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/exitcode"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/tune"
)

// TestTuneInNamespace: per-namespace knobs are applied and read back
// inside a namespace, the host keeps its values, undo restores them, and
// the global max is refused there with a clear reason.
func TestTuneInNamespace(t *testing.T) {
	clitest.NeedKernel(t)
	ns := clitest.LabNS(t)
	state := t.TempDir()
	hostTW := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_tcp_timeout_time_wait")
	before := clitest.ReadSysctl(t, ns, "net.core.somaxconn")
	code, out := clitest.TuneIn(t, ns, "--set", "net.netfilter.nf_conntrack_tcp_timeout_time_wait=30", "--set", "net.core.somaxconn=8192",
		"--set", "net.ipv4.ip_local_port_range=10240 65535", "--yes", "--state-dir", state)
	if code != 0 || strings.Count(out, "verified") != 3 {
		t.Fatalf("apply in namespace: code %d\n%s", code, out)
	}
	if got := clitest.ReadSysctl(t, ns, "net.ipv4.ip_local_port_range"); got != "10240 65535" {
		t.Errorf("port range reads %q", got)
	}
	if got := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_tcp_timeout_time_wait"); got != hostTW {
		t.Errorf("the host's TIME_WAIT hold changed to %s", got)
	}
	if code, out := clitest.TuneIn(t, ns, "--undo", "--state-dir", state); code != 0 {
		t.Fatalf("undo: %d %s", code, out)
	}
	if got := clitest.ReadSysctl(t, ns, "net.core.somaxconn"); got != before {
		t.Errorf("after undo somaxconn is %s, want %s", got, before)
	}
	code, out = clitest.TuneIn(t, ns, "--set", "net.netfilter.nf_conntrack_max=8192", "--yes", "--state-dir", state)
	if code != exitcode.Refused || !strings.Contains(out, "child network namespace") {
		t.Errorf("global max from a child namespace: code %d %s", code, out)
	}
}

// TestTuneHostMaxAndUndo: nf_conntrack_max in the host namespace, applied,
// verified, persisted to test directories, undone — and restored by the
// test whatever happens.
func TestTuneHostMaxAndUndo(t *testing.T) {
	clitest.NeedKernel(t)
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	t.Cleanup(func() { os.WriteFile(clitest.MaxPath, []byte(orig), 0o644) })
	dir := t.TempDir()
	sysctlDir, modDir, state := filepath.Join(dir, "sysctl.d"), filepath.Join(dir, "modprobe.d"), filepath.Join(dir, "state")
	os.MkdirAll(sysctlDir, 0o755)
	os.MkdirAll(modDir, 0o755)
	os.WriteFile(filepath.Join(sysctlDir, "99-tablefull.conf"), []byte("vm.swappiness = 10\n"), 0o644)
	flags := []string{"--etc", filepath.Join(dir, "etc"), "--sysctl-dir", sysctlDir, "--modprobe-dir", modDir, "--sysctl-conf", filepath.Join(dir, "sysctl.conf"), "--state-dir", state}

	code, out := clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000", "--dry-run"}, flags...)...)
	if code != 0 || !strings.Contains(out, "+net.netfilter.nf_conntrack_max = 300000") || clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max") != orig {
		t.Fatalf("dry run: code %d, max %s\n%s", code, clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max"), out)
	}
	code, out = clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000"}, flags...)...)
	if code != exitcode.Refused || clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max") != orig {
		t.Fatalf("without --yes: code %d\n%s", code, out)
	}
	code, out = clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000", "--yes", "--persist"}, flags...)...)
	if code != 0 || !strings.Contains(out, "verified") || clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max") != "300000" {
		t.Fatalf("apply: code %d\n%s", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(sysctlDir, "99-tablefull.conf"))
	if string(b) != "vm.swappiness = 10\nnet.netfilter.nf_conntrack_max = 300000\n" {
		t.Errorf("persisted file %q", b)
	}
	code, out = clitest.TuneIn(t, nil, append([]string{"--undo"}, flags...)...)
	if code != 0 || clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max") != orig {
		t.Fatalf("undo: code %d, max %s\n%s", code, clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max"), out)
	}
	if b, _ := os.ReadFile(filepath.Join(sysctlDir, "99-tablefull.conf")); string(b) != "vm.swappiness = 10\n" {
		t.Errorf("undo left %q", b)
	}
	for _, bad := range [][]string{{"--set", "net.ipv4.ip_local_port_range=60000 1024"}, {"--set", "net.netfilter.nf_conntrack_max=lots"}, {"--set", "kernel.panic=1"}} {
		if code, out := clitest.TuneIn(t, nil, append(append(bad, "--yes"), flags...)...); code != exitcode.Refused {
			t.Errorf("%v: code %d %s", bad, code, out)
		}
	}
}

// TestTuneUnprivileged: not root, nothing is written and the reason is
// given.
func TestTuneUnprivileged(t *testing.T) {
	kernelfstest.Need(t, "a run as nobody")
	bin := clitest.NobodyBinary(t)
	cmd := exec.Command(bin, "tune", "--observe", "0", "--set", "net.netfilter.nf_conntrack_tcp_timeout_time_wait=30", "--yes", "--state-dir", filepath.Dir(bin))
	cmd.Env = []string{"TABLEFULL_AS_MAIN=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitcode.Refused || !strings.Contains(string(out), "needs root") {
		t.Errorf("tune as nobody: %v %s", err, out)
	}
}

// TestTuningPanelInTmux: in the console running inside a namespace, t
// opens the panel, a value is edited, applied, and reads back verified.
func TestTuningPanelInTmux(t *testing.T) {
	clitest.NeedKernel(t, "tmux")
	ns := clitest.LabNS(t)
	exe, _ := os.Executable()
	s := clitest.StartTmuxArgv(t, 160, 40, []string{"ip", "netns", "exec", ns.Name, "env", "TABLEFULL_AS_MAIN=1", exe, "--state-dir", t.TempDir()})
	s.WaitFor("LIVE")
	s.Keys("t")
	s.WaitFor("tuning", "net.core.somaxconn", "memory")
	s.Keys("Down", "Down", "Enter", "C-u", "30", "Enter")
	s.WaitFor("→ 30")
	s.Keys("a")
	s.WaitFor("apply 1 change(s)? y/n")
	s.Keys("y")
	s.WaitFor("verified", "apply done")
	if got := clitest.ReadSysctl(t, ns, "net.netfilter.nf_conntrack_tcp_timeout_time_wait"); got != "30" {
		t.Errorf("TIME_WAIT hold in the namespace is %s after apply", got)
	}
	s.Keys("Escape", "q")
}

// TestTuneDryRunSaysWhatApplyWould: --dry-run --json is JSON with the
// plan and the files a persist would change, and a plan an apply would
// refuse is refused by the dry run too, with the apply's exit code.
func TestTuneDryRunSaysWhatApplyWould(t *testing.T) {
	clitest.NeedKernel(t)
	dir := t.TempDir()
	flags := []string{"--etc", filepath.Join(dir, "etc"), "--sysctl-dir", filepath.Join(dir, "sysctl.d"), "--modprobe-dir", filepath.Join(dir, "modprobe.d"),
		"--sysctl-conf", filepath.Join(dir, "sysctl.conf"), "--state-dir", filepath.Join(dir, "state")}
	orig := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max")
	code, out := clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000", "--dry-run", "--json"}, flags...)...)
	var doc struct {
		Plan struct {
			Changes []struct{ Key, Proposed string } `json:"changes"`
		} `json:"plan"`
		Files   []string `json:"files_to_change"`
		Refused string   `json:"refused"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Plan.Changes) != 1 || len(doc.Files) != 1 || doc.Refused != "" {
		t.Fatalf("dry run --json: code %d, %v: %+v\n%s", code, err, doc, out)
	}
	code, out = clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=2147483647", "--dry-run", "--json"}, flags...)...)
	doc.Refused = ""
	if err := json.NewDecoder(strings.NewReader(out)).Decode(&doc); err != nil || code != exitcode.Refused || !strings.Contains(doc.Refused, "of RAM") {
		t.Errorf("a dry run of a plan over 25 %% of RAM: code %d, refused %q\n%s", code, doc.Refused, out)
	}
	if got := clitest.ReadSysctl(t, nil, "net.netfilter.nf_conntrack_max"); got != orig {
		t.Errorf("a dry run wrote nf_conntrack_max: %s, was %s", got, orig)
	}
}

// TestTuneNamesKubeProxy: with a kube-proxy running, a dry run that
// raises max says kube-proxy rewrites it at its start and where to set
// it instead.
func TestTuneNamesKubeProxy(t *testing.T) {
	clitest.NeedKernel(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "kube-proxy")
	os.WriteFile(bin, []byte("#!/bin/sh\nsleep 30\n"), 0o755)
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("conntrack:\n  maxPerCore: 32768\n  min: 131072\n"), 0o644)
	kp := exec.Command(bin, "--config", conf)
	if err := kp.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { kp.Process.Kill(); kp.Wait() }()
	time.Sleep(200 * time.Millisecond)
	flags := []string{"--etc", filepath.Join(dir, "etc"), "--sysctl-dir", filepath.Join(dir, "sysctl.d"), "--modprobe-dir", filepath.Join(dir, "modprobe.d"),
		"--sysctl-conf", filepath.Join(dir, "sysctl.conf"), "--state-dir", filepath.Join(dir, "state")}
	_, out := clitest.TuneIn(t, nil, append([]string{"--set", "net.netfilter.nf_conntrack_max=300000", "--dry-run"}, flags...)...)
	if !strings.Contains(out, "kube-proxy (pid") || !strings.Contains(out, "max(32,768 × CPUs, 131,072)") || !strings.Contains(out, conf) {
		t.Errorf("the dry run does not name kube-proxy:\n%s", out)
	}
	// The console's panel asks the same of its tuner.
	k, _ := tune.NewLocal(kernelfs.Roots{Proc: "/proc", Sys: "/sys"}, filepath.Join(dir, "state")).Read()
	if note := k.Owners[knob.Max]; !strings.Contains(note, fmt.Sprintf("kube-proxy (pid %d)", kp.Process.Pid)) || !strings.Contains(note, conf) {
		t.Errorf("the panel's tuner does not name kube-proxy for max: %q", note)
	}
}
