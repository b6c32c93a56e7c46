package ctnetlink

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/ti-mo/conntrack"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Delete deletes each entry of the caller's network namespace by its
// original tuple and zone over ctnetlink (conntrack -D's way, without a
// shell), and counts into d what the kernel deleted, what was already
// gone and what it did not ask for (no ports: ICMP's id is not read). It
// stops at the first error other than an entry already gone and says how
// far it got. It needs CAP_NET_ADMIN.
func Delete(flows []model.Flow, d *model.Deletion) error {
	c, err := conntrack.Dial(nil)
	if err != nil {
		return fmt.Errorf("dial ctnetlink: %w", err)
	}
	defer c.Close()
	for _, f := range flows {
		if f.Proto == 1 || f.Proto == 58 || !f.Src.IsValid() || !f.Dst.IsValid() {
			d.Skipped++
			continue
		}
		cf := conntrack.Flow{Zone: f.Zone}
		cf.TupleOrig.IP.SourceAddress, cf.TupleOrig.IP.DestinationAddress = f.Src, f.Dst
		cf.TupleOrig.Proto.Protocol, cf.TupleOrig.Proto.SourcePort, cf.TupleOrig.Proto.DestinationPort = f.Proto, f.SrcPort, f.DstPort
		if f.Src.Is6() && f.ReplySrc.IsValid() && f.ReplyDst.IsValid() { // the request's family is IPv6 only with both tuples
			cf.TupleReply.IP.SourceAddress, cf.TupleReply.IP.DestinationAddress = f.ReplySrc, f.ReplyDst
			cf.TupleReply.Proto.Protocol, cf.TupleReply.Proto.SourcePort, cf.TupleReply.Proto.DestinationPort = f.Proto, f.ReplySrcPort, f.ReplyDstPort
		}
		switch err := c.Delete(cf); {
		case err == nil:
			d.Deleted++
		case errors.Is(err, syscall.ENOENT):
			d.Gone++
		case errors.Is(err, syscall.EPERM):
			return fmt.Errorf("delete entries: %w (CAP_NET_ADMIN)", kernelfs.ErrPermission)
		default:
			return fmt.Errorf("delete entries (%d deleted so far): %w", d.Deleted, err)
		}
	}
	return nil
}
