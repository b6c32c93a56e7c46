package console

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// nsIno is a named namespace's inode, as "table full in netns N" names it.
func nsIno(t *testing.T, ns *netns.NS) uint64 {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(ns.Path(), &st); err != nil {
		t.Fatal(err)
	}
	return st.Ino
}

// TestKernelLineOfAGoneNamespace: a namespace fills its table and logs
// "table full", is deleted, and a new namespace gets its inode number: the
// old line is shown as "(gone)", never under the new namespace's name.
func TestKernelLineOfAGoneNamespace(t *testing.T) {
	clitest.NeedKernel(t)
	clitest.LowerMax(t, 32)
	old, err := netns.Create(fmt.Sprintf("tft-old-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	deleted := false
	t.Cleanup(func() {
		if !deleted {
			old.Delete()
		}
	})
	if err := old.Nft(netns.TrackRuleset); err != nil {
		t.Fatal(err)
	}
	ino := nsIno(t, old)
	// The server and its clients run in a child process inside the
	// namespace, so that no socket of this process keeps it alive.
	exe, _ := os.Executable()
	fill := old.Command(exe, "-test.run=^TestFillTableHelper$")
	fill.Env = append(os.Environ(), "TABLEFULL_FILL_HELPER=1")
	if out, err := fill.CombinedOutput(); err != nil || !regexp.MustCompile(`(?m)^[1-9][0-9]* refused`).Match(out) {
		t.Fatalf("fill: %v %s", err, out)
	}
	if err := old.Delete(); err != nil {
		t.Fatal(err)
	}
	deleted = true

	var reused *netns.NS
	for i := 0; i < 300 && reused == nil; i++ { // the inode is freed once the kernel has cleaned the namespace up
		n, err := netns.Create(fmt.Sprintf("tft-new-%d-%d", os.Getpid(), i))
		if err != nil {
			t.Fatal(err)
		}
		if nsIno(t, n) == ino {
			reused = n
			t.Cleanup(func() { n.Delete() })
			break
		}
		n.Delete()
		time.Sleep(20 * time.Millisecond)
	}
	if reused == nil {
		t.Skipf("the kernel did not give inode %d to any of 300 new namespaces", ino)
	}

	k := counters.NewKmsg(kernelfs.DefaultRoots())
	defer k.Close()
	found := false
	var lines []model.KernelLine
	for more := true; more; more = k.More { // the whole backlog: a long test run leaves a long one
		lines = append(lines, k.Poll(time.Now()).Lines...)
	}
	for _, l := range lines {
		if l.NetNS != ino {
			continue
		}
		found = true
		if l.NetNSName != model.NetNSGone {
			t.Errorf("a line of the deleted namespace, %s, is named %q (the new namespace is %s)", l.Time.Format(time.TimeOnly), l.NetNSName, reused.Name)
		}
	}
	if !found {
		t.Errorf("the kernel log has no table-full line of inode %d", ino)
	}
}

// TestFillTableHelper, run inside a namespace by the test above, serves on
// its loopback and opens connections until the table refuses some.
func TestFillTableHelper(t *testing.T) {
	if os.Getenv("TABLEFULL_FILL_HELPER") != "1" {
		t.Skip("a helper")
	}
	addr := nstest.Serve(t, nil, "127.0.0.1:18080", nil)
	refused := 0
	for range 48 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			refused++
			continue
		}
		c.Close()
	}
	fmt.Printf("%d refused\n", refused)
}
