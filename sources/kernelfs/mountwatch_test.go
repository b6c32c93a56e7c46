package kernelfs

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
)

// TestMountWatchSeesNetnsMounts: the watch says changed after ip netns
// adds or deletes a namespace's bind mount, once each, and not before;
// a fixture table is not watched.
func TestMountWatchSeesNetnsMounts(t *testing.T) {
	if WatchMounts(mountinfoFixture) != nil {
		t.Errorf("a fixture file is watched: its changes would never be said")
	}
	kernelfstest.Need(t, "a namespace")
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip")
	}
	w := WatchMounts("/proc/self/mountinfo")
	if w == nil {
		t.Fatal("/proc/self/mountinfo is not watched")
	}
	defer w.Close()
	if w.Changed() {
		t.Skip("the mount table changed meanwhile: another test mounts")
	}
	name := fmt.Sprintf("tfw-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns add: %v %s", err, out)
	}
	deleted := false
	defer func() {
		if !deleted {
			exec.Command("ip", "netns", "del", name).Run()
		}
	}()
	if !w.Changed() {
		t.Errorf("ip netns add: not seen")
	}
	if w.Changed() {
		t.Errorf("a change was said twice")
	}
	if out, err := exec.Command("ip", "netns", "del", name).CombinedOutput(); err != nil {
		t.Fatalf("ip netns del: %v %s", err, out)
	}
	deleted = true
	if !w.Changed() {
		t.Errorf("ip netns del: not seen")
	}
}
