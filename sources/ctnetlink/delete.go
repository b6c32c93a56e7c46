package ctnetlink

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Deleter deletes entries of the caller's network namespace one at a
// time over its own ctnetlink socket, so that a dump can delete what it
// lists as it lists it (no list of every match kept). It needs
// CAP_NET_ADMIN.
type Deleter struct{ c *netfilter.Conn }

// NewDeleter opens the socket deletes go through.
func NewDeleter() (*Deleter, error) {
	c, err := netfilter.Dial(nil)
	if err != nil {
		return nil, fmt.Errorf("dial ctnetlink: %w", err)
	}
	return &Deleter{c: c}, nil
}

// Close closes the socket.
func (dl *Deleter) Close() error { return dl.c.Close() }

// Delete deletes f by its original tuple and zone (conntrack -D's way,
// without a shell), with the id it was dumped with where read: the
// kernel then deletes that entry only, not one that took its tuple since
// the dump (it answers ENOENT, counted as gone). It counts into d what
// the kernel deleted, what was already gone and what it did not ask for
// (no ports: ICMP's id is not read); an error other than an entry gone
// says how far the deletion got.
func (dl *Deleter) Delete(f model.Flow, d *entry.Deletion) error {
	if f.Proto == 1 || f.Proto == 58 || !f.Src.IsValid() || !f.Dst.IsValid() {
		d.Skipped++
		return nil
	}
	req, err := deleteRequest(f)
	if err != nil {
		return fmt.Errorf("delete entries (%d deleted so far): %w", d.Deleted, err)
	}
	switch _, err := dl.c.Query(req); {
	case err == nil:
		d.Deleted++
	case errors.Is(err, syscall.ENOENT):
		d.Gone++
	case errors.Is(err, syscall.EPERM):
		return fmt.Errorf("delete entries: %w (CAP_NET_ADMIN)", kernelfs.ErrPermission)
	default:
		return fmt.Errorf("delete entries (%d deleted so far): %w", d.Deleted, err)
	}
	return nil
}

// deleteRequest is IPCTNL_MSG_CT_DELETE for f: its original tuple, its
// zone, and its id when dumped with one.
func deleteRequest(f model.Flow) (netlink.Message, error) {
	family, src, dst := netfilter.ProtoIPv4, uint16(ctaIPv4Src), uint16(ctaIPv4Dst)
	if f.Src.Is6() {
		family, src, dst = netfilter.ProtoIPv6, ctaIPv6Src, ctaIPv6Dst
	}
	ip := []netfilter.Attribute{{Type: src, Data: f.Src.AsSlice()}, {Type: dst, Data: f.Dst.AsSlice()}}
	proto := []netfilter.Attribute{{Type: ctaProtoNum, Data: []byte{f.Proto}},
		{Type: ctaProtoSrcPort, Data: netfilter.Uint16Bytes(f.SrcPort)}, {Type: ctaProtoDstPort, Data: netfilter.Uint16Bytes(f.DstPort)}}
	attrs := []netfilter.Attribute{{Type: ctaTupleOrig, Nested: true, Children: []netfilter.Attribute{
		{Type: ctaTupleIP, Nested: true, Children: ip}, {Type: ctaTupleProto, Nested: true, Children: proto}}}}
	if f.Zone != 0 {
		attrs = append(attrs, netfilter.Attribute{Type: ctaZone, Data: netfilter.Uint16Bytes(f.Zone)})
	}
	if f.ID != 0 {
		attrs = append(attrs, netfilter.Attribute{Type: ctaID, Data: netfilter.Uint32Bytes(f.ID)})
	}
	return netfilter.MarshalNetlink(netfilter.Header{SubsystemID: netfilter.NFSubsysCTNetlink, MessageType: ctDelete,
		Family: family, Flags: netlink.Request | netlink.Acknowledge}, attrs)
}
