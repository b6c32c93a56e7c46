package counters

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestKmsgForgedByAnUnprivilegedUser: an unprivileged user (uid 65534)
// makes the kernel log text of its choosing (an overlayfs mount in a user
// namespace logs the lowerdir it failed to resolve) that reads as the
// rate limiter's "18446744073709551615 callbacks suppressed": the kernel
// log holds it, and tablefull adds nothing for it. (A table-full line
// needs a comma, which the mount's options cannot carry; the parser's
// test covers its shape.)
func TestKmsgForgedByAnUnprivilegedUser(t *testing.T) {
	kernelfstest.Need(t, "/dev/kmsg and a run as uid 65534")
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare")
	}
	dir, err := os.MkdirTemp("", "tft-forge-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	for _, d := range []string{"u", "w", "m"} {
		os.Mkdir(filepath.Join(dir, d), 0o777)
		os.Chown(filepath.Join(dir, d), 65534, 65534)
	}
	k := NewKmsg(kernelfs.Roots{Dev: "/dev", Proc: "/proc", Run: "/run"})
	defer k.Close()
	k.Poll(time.Now())
	for k.More { // the backlog up to now
		k.Poll(time.Now())
	}
	forged := "x 18446744073709551615 callbacks suppressed"
	cmd := exec.Command("unshare", "-Urm", "mount", "-t", "overlay", "overlay", "-o",
		"lowerdir="+filepath.Join(dir, forged)+",upperdir="+filepath.Join(dir, "u")+",workdir="+filepath.Join(dir, "w"), filepath.Join(dir, "m"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput() // the mount fails: that is what logs the text
	if err == nil {
		t.Fatalf("an unprivileged overlay mount of a missing lowerdir succeeded: %s", out)
	}
	var log []byte
	for end := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if log, err = exec.Command("dmesg").Output(); err != nil {
			t.Fatalf("dmesg: %v", err)
		}
		if strings.Contains(string(log), forged) || time.Now().After(end) {
			break
		}
	}
	if !strings.Contains(string(log), forged) {
		t.Skipf("this kernel did not log the lowerdir for an unprivileged user (%s): nothing to forge with here", strings.TrimSpace(string(out)))
	}
	got := k.Poll(time.Now())
	if got.Suppressed != 0 || len(got.Lines) != 0 {
		t.Errorf("a line an unprivileged user chose counted: %d suppressed, lines %+v", got.Suppressed, got.Lines)
	}
}
