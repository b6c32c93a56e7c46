package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTuneIgnoresImpostorKubeProxy: an unprivileged user (uid 65534)
// runs a process named kube-proxy whose --config is a FIFO: tune
// --dry-run finishes within 15 s and names no manager (it used to block
// as root in open() of the FIFO).
func TestTuneIgnoresImpostorKubeProxy(t *testing.T) {
	needKernel(t, "setpriv")
	dir, err := os.MkdirTemp("", "impostor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	fifo := filepath.Join(dir, "config.yaml")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "kube-proxy")
	os.WriteFile(bin, []byte("#!/bin/sh\nread line\n"), 0o755) // waits in the shell itself: no fork shows as a second one
	kp := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "--config="+fifo)
	stdin, _ := kp.StdinPipe()
	if err := kp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); kp.Process.Kill(); kp.Wait() })
	time.Sleep(300 * time.Millisecond)
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
