package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablefull/tablefull/remote/agent"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// deployLocally runs the deploy script in a local shell whose cache is
// cache and whose PATH has no tablefull, and returns the first sample's
// error (nil when the agent streams).
func deployLocally(t *testing.T, dep *agent.Deployer, cache string) error {
	t.Helper()
	p := &agent.Process{Argv: []string{"env", "XDG_CACHE_HOME=" + cache, "PATH=/usr/bin:/bin", "sh", "-c", dep.Script()},
		MinBackoff: time.Hour, Handshake: dep.Handshake}
	p.Start(200 * time.Millisecond)
	defer p.Stop()
	done := make(chan error, 1)
	go func() { _, err := p.Next(); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("no sample and no error from the deploy script")
		return nil
	}
}

// TestDeployVerifiesCache: a planted file where the cached agent goes is
// never run (its checksum is checked on every run) and is replaced by this
// binary; a cache directory others can write, or that another user owns,
// is refused before anything in it runs.
func TestDeployVerifiesCache(t *testing.T) {
	kernelfstest.Need(t, "a cache owned by another user")
	dep, err := agent.NewDeployer()
	if err != nil {
		t.Fatal(err)
	}
	sum, size := thisBinary(t)
	cache := t.TempDir()
	dir := filepath.Join(cache, "tablefull")
	os.MkdirAll(dir, 0o700)
	marker := filepath.Join(cache, "planted-ran")
	bin := filepath.Join(dir, "tablefull-"+sum)
	os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+marker+"\nexec sleep 30\n"), 0o755)

	if err := deployLocally(t, dep, cache); err != nil {
		t.Fatalf("deploy over a planted file: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted file ran")
	}
	if st, err := os.Stat(bin); err != nil || st.Size() != size || st.Mode().Perm() != 0o700 {
		t.Fatalf("cached agent after deploy: %v %v", st, err)
	}

	os.WriteFile(bin, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	os.Chmod(dir, 0o777)
	if err := deployLocally(t, dep, cache); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a world-writable cache: %v", err)
	}
	os.Chmod(dir, 0o700)
	os.Chown(dir, 65534, 65534)
	if err := deployLocally(t, dep, cache); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("a cache owned by nobody: %v", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the planted file ran")
	}
}

// thisBinary is the sha256 and size of the running binary: what a
// deployed copy must be.
func thisBinary(t *testing.T) (string, int64) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), int64(len(b))
}
