package sources

import (
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/verdict"
	"github.com/tablefull/tablefull/sources/netns"
	"github.com/tablefull/tablefull/sources/netns/nstest"
)

// stuckReliableListener joins ns's DESTROY events the way conntrackd
// does (NETLINK_BROADCAST_ERROR: the kernel keeps an entry whose event it
// could not deliver), with a receive buffer of a few events, and never
// reads; it stops listening when the test ends.
func stuckReliableListener(t *testing.T, ns *netns.NS) {
	t.Helper()
	var fd int
	if err := ns.Do(func() (err error) {
		if fd, err = unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER); err != nil {
			return err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_BROADCAST_ERROR, 1); err != nil {
			return err
		}
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1024); err != nil {
			return err
		}
		return unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: 1 << 2}) // NFNLGRP_CONNTRACK_DESTROY
	}); err != nil {
		t.Fatalf("listen to DESTROY events: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
}

// TestDyingListToldApartFromGCBehind: on the real kernel, a listener
// that asked for reliable delivery and stopped reading keeps the entries
// conntrack -F ended on the dying list, still counted; the census reads
// that list, and the verdict is EVENTS UNDELIVERED, not expired entries
// the collector is behind on.
func TestDyingListToldApartFromGCBehind(t *testing.T) {
	if _, err := exec.LookPath("conntrack"); err != nil {
		t.Skip("needs conntrack")
	}
	ns, addr := nstest.Tracked(t)
	stuckReliableListener(t, ns)
	nstest.Connect(t, ns, addr, 300)
	if out, err := ns.Output("conntrack", "-F"); err != nil {
		t.Fatalf("conntrack -F: %v: %s", err, out)
	}
	cen := dumpIn(t, ns)
	if !cen.DyingRead || cen.Dying < 250 || cen.Total > 10 {
		t.Fatalf("300 flushed entries behind a stuck listener: census of %d, count %d, dying %d (read %v)", cen.Total, cen.CountBefore, cen.Dying, cen.DyingRead)
	}
	s := model.Sample{Time: time.Now(), Interval: time.Second, Conntrack: model.Conntrack{Status: model.TableTracked, Count: cen.CountBefore, Peak: cen.CountBefore, Max: 262144, Buckets: 262144}}
	vs := diagnose.Judge(diagnose.Inputs{Sample: s, Census: &cen})
	var kinds []verdict.Kind
	for _, v := range vs {
		kinds = append(kinds, v.Kind)
	}
	if vs[0].Kind != verdict.DyingList || len(kinds) > 1 && kinds[1] == verdict.GCBehind {
		t.Errorf("verdicts %v", vs)
	}
	t.Logf("%s; %s", vs[0], cen.CountText())
}

// dumpIn is the census of ns's table, owners and dying list included,
// as the collector takes it.
func dumpIn(t *testing.T, ns *netns.NS) model.Census {
	t.Helper()
	var cen model.Census
	if err := ns.Do(func() (err error) {
		cen, err = CensusDump{Timeout: 10 * time.Second, Proc: "/proc"}.Run(10)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return cen
}
