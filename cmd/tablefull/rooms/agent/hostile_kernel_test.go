package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestTuneIgnoresImpostorKubeProxy: an unprivileged user (uid 65534)
// runs a process named kube-proxy whose --config is a FIFO: tune
// --dry-run finishes within 15 s and names no manager (it used to block
// as root in open() of the FIFO).
func TestTuneIgnoresImpostorKubeProxy(t *testing.T) {
	impostorKubeProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	exe, _ := os.Executable()
	state := t.TempDir()
	cmd := exec.CommandContext(ctx, exe, "tune", "--dry-run", "--observe", "0", "--set", "net.netfilter.nf_conntrack_max=300000",
		"--etc", filepath.Join(state, "etc"), "--state-dir", filepath.Join(state, "state"))
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("tune --dry-run still running after 15 s with an impostor kube-proxy: %s", out)
	}
	if strings.Contains(string(out), "kube-proxy") {
		t.Errorf("the impostor is named as a manager (%v):\n%s", err, out)
	}
}

// impostorKubeProxy runs, as uid 65534, a process named kube-proxy whose
// --config is a FIFO, until the test ends.
func impostorKubeProxy(t *testing.T) {
	t.Helper()
	clitest.NeedKernel(t, "setpriv")
	fifo := kernelfstest.FIFOFor(t, "config.yaml")
	bin := filepath.Join(filepath.Dir(fifo), "kube-proxy")
	os.WriteFile(bin, []byte("#!/bin/sh\nread line\n"), 0o755) // waits in the shell itself: no fork shows as a second one
	kp := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "--config="+fifo)
	stdin, _ := kp.StdinPipe()
	if err := kp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); kp.Process.Kill(); kp.Wait() })
	time.Sleep(300 * time.Millisecond)
}

// TestSampleWithImpostorKubeProxy: a persisted max that drifted makes the
// sample look up who else writes it (the drift check inside every
// sample): with the impostor's FIFO config a snapshot still finishes at
// once, drift said, no manager named.
func TestSampleWithImpostorKubeProxy(t *testing.T) {
	impostorKubeProxy(t)
	etc := t.TempDir()
	os.MkdirAll(filepath.Join(etc, "sysctl.d"), 0o755)
	os.WriteFile(filepath.Join(etc, "sysctl.d", "99-tablefull.conf"), []byte("net.netfilter.nf_conntrack_max = 12345\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	exe, _ := os.Executable()
	cmd := exec.CommandContext(ctx, exe, "snapshot", "--json", "--etc", etc)
	cmd.Env = append(os.Environ(), "TABLEFULL_AS_MAIN=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("a snapshot still running after 15 s with an impostor kube-proxy: %s", out)
	}
	if err != nil || !strings.Contains(string(out), "12345") || strings.Contains(string(out), "kube-proxy") {
		t.Errorf("snapshot (%v): want the drift, no manager:\n%.2000s", err, out)
	}
}
