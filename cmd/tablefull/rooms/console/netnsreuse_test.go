package console

import (
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
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
	// a line of this inode logged since is this namespace's: a namespace
	// that had the inode before was gone before this one was made
	created := time.Now()
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
	fillLogged(t, old, ino)
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
		found = found || l.Time.After(created)
		if l.NetNSName != model.NetNSGone {
			t.Errorf("a line of the deleted namespace, %s, is named %q (the new namespace is %s)", l.Time.Format(time.TimeOnly), l.NetNSName, reused.Name)
		}
	}
	if !found {
		t.Errorf("the kernel log has no table-full line of inode %d since its namespace was made (%s)", ino, created.Format(time.TimeOnly))
	}
}

// fillLogged fills ns's table until the kernel logs it full. Its "table
// full" lines are rate-limited for the whole machine (message_burst lines
// every message_cost seconds): a test just before may have spent the
// burst, so the fill is tried again once the limit's interval has passed.
func fillLogged(t *testing.T, ns *netns.NS, ino uint64) {
	t.Helper()
	k := counters.NewKmsg(kernelfs.DefaultRoots())
	defer k.Close()
	for more := true; more; more = k.More { // from now on: the backlog read past
		k.Poll(time.Now())
	}
	interval := 5 * time.Second // the kernel's default message_cost
	if b, err := os.ReadFile("/proc/sys/net/core/message_cost"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			interval = time.Duration(n) * time.Second
		}
	}
	exe, _ := os.Executable()
	for attempt := 1; ; attempt++ {
		fill := ns.Command(exe, "-test.run=^TestFillTableHelper$")
		fill.Env = append(os.Environ(), "TABLEFULL_FILL_HELPER=1")
		if out, err := fill.CombinedOutput(); err != nil || !regexp.MustCompile(`(?m)^[1-9][0-9]* refused`).Match(out) {
			t.Fatalf("fill: %v %s", err, out)
		}
		for more := true; more; more = k.More {
			for _, l := range k.Poll(time.Now()).Lines {
				if l.NetNS == ino {
					return
				}
			}
		}
		if attempt == 3 {
			t.Fatalf("the kernel logged no table-full line of inode %d in %d fills %s apart", ino, attempt, interval+time.Second)
		}
		time.Sleep(interval + time.Second)
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
