package tune

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/tuning"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// standIn runs a script named kube-proxy with args (its comm is the
// script's name) until the test ends. The script waits in the shell's own
// read, never forking: a forked child shows as a second kube-proxy until
// it execs.
func standIn(t *testing.T, args ...string) {
	t.Helper()
	standInAs(t, nil, args...)
}

// standInAs is standIn run through prefix (setpriv as another user); its
// script lives in a directory anyone can read.
func standInAs(t *testing.T, prefix []string, args ...string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "kube-proxy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "kube-proxy")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nread line\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	argv := append(append(append([]string(nil), prefix...), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "comm")); strings.TrimSpace(string(b)) == "kube-proxy" {
			return
		}
	}
	t.Fatal("the stand-in never showed as kube-proxy")
}

// TestFindKubeProxy: a running kube-proxy's flags and --config say which
// knobs it writes at its start; the flags win over the file.
func TestFindKubeProxy(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "kube-proxy.yaml")
	os.WriteFile(conf, []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nconntrack:\n  maxPerCore: 0\n  min: 262144\n  udpTimeout: 5s\n  tcpEstablishedTimeout: 24h0m0s\nmode: iptables\n"), 0o644)
	standIn(t, "--config="+conf, "--conntrack-max-per-core", "65536", "--v=2")
	ms := FindManagers("/proc")
	if len(ms) != 1 {
		t.Fatalf("found %+v, want the one kube-proxy", ms)
	}
	m := ms[0]
	if m.Owns[knob.Max] != "max(65,536 × CPUs, 262,144)" || m.Owns[knob.UDPTimeout] != "5s" || !strings.Contains(m.Where, conf) {
		t.Errorf("kube-proxy owns %v, set in %q", m.Owns, m.Where)
	}
	w := ManagerWarnings(ms, []tuning.Change{{Key: knob.Max, Proposed: "524288"}, {Key: knob.TimeWait, Proposed: "30"}})
	if len(w) != 1 || !strings.Contains(w[0], "nf_conntrack_max") || !strings.Contains(w[0], "lasts until it restarts") {
		t.Errorf("warnings %q", w)
	}
}

// TestKubeProxyLeavingMax: maxPerCore 0 in its config leaves max alone.
func TestKubeProxyLeavingMax(t *testing.T) {
	m := kubeProxy(7, []string{"kube-proxy", "--conntrack-max-per-core=0"})
	if _, ok := m.Owns[knob.Max]; ok {
		t.Errorf("maxPerCore 0 still owns max: %v", m.Owns)
	}
}

// findManagersWithin is FindManagers, failed when it takes over d (a
// config that blocks it).
func findManagersWithin(t *testing.T, d time.Duration) []Manager {
	t.Helper()
	done := make(chan []Manager, 1)
	go func() { done <- FindManagers("/proc") }()
	select {
	case ms := <-done:
		return ms
	case <-time.After(d):
		t.Fatalf("FindManagers still running after %s: a config blocked it", d)
		return nil
	}
}

// TestKubeProxyImpostors: any user can name a process kube-proxy and
// point its --config at a FIFO, a device or a relative path: a process
// that is not root in the host's user namespace is not a manager, and a
// root one's config is read only as an absolute regular file, opened
// without blocking — FindManagers returns at once either way.
func TestKubeProxyImpostors(t *testing.T) {
	kernelfstest.Need(t, "an impostor run as another user")
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("needs setpriv")
	}
	fifo := kernelfstest.FIFOFor(t, "config.yaml")
	standInAs(t, []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, "--config="+fifo)
	if ms := findManagersWithin(t, 5*time.Second); len(ms) != 0 {
		t.Fatalf("an unprivileged kube-proxy is trusted: %+v", ms)
	}
	standIn(t, "--config="+fifo) // root, but its config a FIFO
	ms := findManagersWithin(t, 5*time.Second)
	if len(ms) != 1 || ms[0].Owns[knob.Max] != "max(32,768 × CPUs, 131,072)" {
		t.Fatalf("root kube-proxy with a FIFO config: %+v", ms)
	}
	if _, err := readManagerConfig("conf/kube-proxy.yaml"); err == nil {
		t.Errorf("a relative config path was read")
	}
	if _, err := readManagerConfig("/dev/zero"); err == nil {
		t.Errorf("a device was read as a config")
	}
}
