package sources

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
)

// ctnetlink attribute numbers (linux/netfilter/nfnetlink_conntrack.h).
const (
	ctGet = 1 // IPCTNL_MSG_CT_GET

	ctaTupleOrig = 1
	ctaStatus    = 3
	ctaProtoinfo = 4
	ctaTimeout   = 7

	ctaTupleIP    = 1
	ctaTupleProto = 2

	ctaIPv4Src = 1
	ctaIPv4Dst = 2
	ctaIPv6Src = 3
	ctaIPv6Dst = 4

	ctaProtoNum     = 1
	ctaProtoSrcPort = 2
	ctaProtoDstPort = 3

	ctaProtoinfoTCP      = 1
	ctaProtoinfoTCPState = 1
)

// CensusDump walks the conntrack table over ctnetlink and counts flows as
// the messages arrive, never holding the table in memory (ti-mo's Dump
// returns every flow in a slice: 412 MB at 262,144 entries). It needs
// CAP_NET_ADMIN and reads the caller's network namespace.
type CensusDump struct {
	// Timeout bounds the whole dump.
	Timeout time.Duration
	// OpenHold is the namespace's established timeout in seconds (0:
	// unknown): with it, entries idle over an hour are counted.
	OpenHold uint64
	// Proc, when set, is the process root the entries' owners are found
	// under (/proc): the census then joins them to the namespace's
	// sockets (Census.Owners).
	Proc string
}

// Run dumps and counts; top is the length of each top list.
func (d CensusDump) Run(top int) (model.Census, error) {
	start := time.Now()
	nc, err := netlink.Dial(unix.NETLINK_NETFILTER, nil)
	if err != nil {
		return model.Census{}, fmt.Errorf("dial ctnetlink: %w", err)
	}
	defer nc.Close()
	if d.Timeout > 0 {
		if err := nc.SetReadDeadline(time.Now().Add(d.Timeout)); err != nil {
			return model.Census{}, fmt.Errorf("set deadline: %w", err)
		}
	}
	req, err := netfilter.MarshalNetlink(netfilter.Header{SubsystemID: netfilter.NFSubsysCTNetlink,
		MessageType: ctGet, Family: netfilter.ProtoUnspec, Flags: netlink.Request | netlink.Dump}, nil)
	if err != nil {
		return model.Census{}, fmt.Errorf("marshal dump request: %w", err)
	}
	req, err = nc.Send(req)
	if err != nil {
		return model.Census{}, fmt.Errorf("send dump request: %w", err)
	}
	c := model.CensusCounter{IdleBelow: model.IdleBelow(d.OpenHold)}
	var ix *socketIndex
	var owners *model.Owners
	if d.Proc != "" {
		if ix, err = dumpSockets(SocketDump{Timeout: d.Timeout}); err != nil {
			owners = &model.Owners{Error: err.Error()}
		} else {
			ix.awayProc = d.Proc
		}
	}
	err = receiveDump(nc, req.Header.Sequence, func(m netlink.Message) error {
		if m.Header.Flags&netlink.DumpInterrupted != 0 {
			c.MarkApproximate()
		}
		f, err := ParseFlow(m)
		if err != nil {
			return err
		}
		c.Add(f)
		if ix != nil {
			ix.add(f)
		}
		return nil
	})
	if errors.Is(err, syscall.EPERM) {
		return model.Census{}, fmt.Errorf("census: %w (CAP_NET_ADMIN)", ErrPermission)
	}
	if err != nil {
		return model.Census{}, err
	}
	out := c.Census(top)
	if ix != nil {
		o := ix.owners(newOwnerRoots(d.Proc), model.OwnersShown)
		owners = &o
	}
	out.Owners = owners
	out.At, out.Took = time.Now(), time.Since(start)
	return out, nil
}
