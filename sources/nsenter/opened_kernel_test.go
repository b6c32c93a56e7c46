package nsenter_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tablefull/tablefull/sources/kernelfs/kernelfstest"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/nsenter"
	"golang.org/x/sys/unix"
)

// TestOpenedRefusesAnotherNamespace: a namespace file that comes to name
// another namespace after it was opened (as /proc/PID/ns/net does when
// its process exits and another takes the pid) is refused before
// anything runs inside; the same file naming the one opened is entered.
func TestOpenedRefusesAnotherNamespace(t *testing.T) {
	kernelfstest.Need(t, "a namespace")
	var nss [2]*netns.NS
	for i := range nss {
		ns, err := netns.Create(fmt.Sprintf("tft-%d-opened%d", os.Getpid(), i))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ns.Delete() })
		nss[i] = ns
	}
	file := filepath.Join(t.TempDir(), "net")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bind := func(ns *netns.NS) {
		if err := unix.Mount(ns.Path(), file, "", unix.MS_BIND, ""); err != nil {
			t.Fatal(err)
		}
	}
	bind(nss[0])
	t.Cleanup(func() { unix.Unmount(file, unix.MNT_DETACH) })
	opened, err := nsenter.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	if err := opened.Do(func() error { ran++; return nil }); err != nil || ran != 1 {
		t.Fatalf("the namespace opened: %v, ran %d", err, ran)
	}
	unix.Unmount(file, unix.MNT_DETACH)
	bind(nss[1]) // the file now names another namespace
	err = opened.Do(func() error { ran++; return nil })
	if !errors.Is(err, nsenter.ErrChanged) || ran != 1 {
		t.Errorf("another namespace behind the file: %v, ran %d", err, ran)
	}
}
