package ctnetlink

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
	"github.com/tablefull/tablefull/sources/nldump"
)

// ctnetlink attribute numbers (linux/netfilter/nfnetlink_conntrack.h).
const (
	ctGet      = 1 // IPCTNL_MSG_CT_GET
	ctGetDying = 6 // IPCTNL_MSG_CT_GET_DYING
	ctDelete   = 2 // IPCTNL_MSG_CT_DELETE

	ctaTupleOrig  = 1
	ctaTupleReply = 2
	ctaStatus     = 3
	ctaProtoinfo  = 4
	ctaTimeout    = 7
	ctaMark       = 8
	ctaCountOrig  = 9
	ctaCountReply = 10
	ctaID         = 12
	ctaZone       = 18
	ctaLabels     = 22

	ctaTupleIP    = 1
	ctaTupleProto = 2
	ctaTupleZone  = 3

	ctaIPv4Src = 1
	ctaIPv4Dst = 2
	ctaIPv6Src = 3
	ctaIPv6Dst = 4

	ctaProtoNum     = 1
	ctaProtoSrcPort = 2
	ctaProtoDstPort = 3

	ctaProtoinfoTCP      = 1
	ctaProtoinfoTCPState = 1

	ctaCountersPackets = 1
	ctaCountersBytes   = 2
)

// Dump walks the conntrack table of the caller's network namespace and
// hands each entry to each as its message arrives, never holding the
// table in memory (ti-mo's Dump returns every flow in a slice: 412 MB at
// 262,144 entries). interrupted says the kernel restarted the dump under
// it, so counts are approximate. timeout (when > 0) bounds the whole
// dump. It needs CAP_NET_ADMIN.
func Dump(timeout time.Duration, each func(f model.Flow, interrupted bool)) error {
	return dump(ctGet, timeout, func(m netlink.Message) error {
		f, err := ParseFlow(m)
		if err != nil {
			return err
		}
		each(f, m.Header.Flags&netlink.DumpInterrupted != 0)
		return nil
	})
}

// CountDying counts the entries on the caller's namespace's dying list
// (conntrack -L dying): ended, out of the table, yet still counted in
// nf_conntrack_count because a listener that asked for reliable event
// delivery (conntrackd's) has not taken their DESTROY events. A kernel
// without the list answers with none. It needs CAP_NET_ADMIN.
func CountDying(timeout time.Duration) (uint64, error) {
	var n uint64
	err := dump(ctGetDying, timeout, func(netlink.Message) error {
		n++
		return nil
	})
	return n, err
}

// dump sends one ctnetlink dump request of type msgType and hands each
// answer to each.
func dump(msgType uint8, timeout time.Duration, each func(netlink.Message) error) error {
	nc, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return fmt.Errorf("dial ctnetlink: %w", err)
	}
	defer nc.Close()
	if timeout > 0 {
		if err := nc.SetReadDeadline(time.Now().Add(timeout)); err != nil {
			return fmt.Errorf("set deadline: %w", err)
		}
	}
	req, err := netfilter.MarshalNetlink(netfilter.Header{SubsystemID: netfilter.NFSubsysCTNetlink,
		MessageType: netfilter.MessageType(msgType), Family: netfilter.ProtoUnspec, Flags: netlink.Request | netlink.Dump}, nil)
	if err != nil {
		return fmt.Errorf("marshal dump request: %w", err)
	}
	req, err = nc.Send(req)
	if err != nil {
		return fmt.Errorf("send dump request: %w", err)
	}
	err = nldump.Receive(nc, req.Header.Sequence, each)
	if errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("census: %w (CAP_NET_ADMIN)", kernelfs.ErrPermission)
	}
	return err
}
