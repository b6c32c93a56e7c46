// Package ovs reads Open vSwitch's connection limits per conntrack zone
// from the kernel: the openvswitch module's ovs_ct_limit generic netlink
// family, in the caller's network namespace. Where the module is not
// loaded the family does not exist and the limits are not present (never
// 0). It only asks (OVS_CT_LIMIT_CMD_GET); it never sets a limit.
package ovs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/nldump"
)

// ErrNotPresent says the ovs_ct_limit family is not in this kernel: the
// openvswitch module is not loaded.
var ErrNotPresent = errors.New("no OVS zone limits here: the openvswitch module is not loaded")

// Generic netlink's numbers (linux/genetlink.h) and ovs_ct_limit's
// (linux/openvswitch.h).
const (
	genlIDCtrl         = 0x10
	ctrlCmdGetFamily   = 3
	ctrlAttrFamilyID   = 1
	ctrlAttrFamilyName = 2
	family             = "ovs_ct_limit"
	cmdGet             = 3
	version            = 1
	attrZoneLimit      = 1
	defaultZone        = -1 // OVS_ZONE_LIMIT_DEFAULT_ZONE
	genlHeaderLen      = 4
	ovsHeaderLen       = 4
	zoneLimitLen       = 12 // struct ovs_zone_limit: zone_id, limit, count
)

// ReadZoneLimits asks the kernel for every zone limit OVS set in this
// network namespace and the default.
func ReadZoneLimits() (*model.ZoneLimits, error) {
	nc, err := netlink.Dial(unix.NETLINK_GENERIC, nil)
	if err != nil {
		return nil, fmt.Errorf("dial generic netlink: %w", err)
	}
	defer nc.Close()
	id, err := familyID(nc)
	if err != nil {
		return nil, err
	}
	req := netlink.Message{Header: netlink.Header{Type: netlink.HeaderType(id), Flags: netlink.Request},
		Data: []byte{cmdGet, version, 0, 0, 0, 0, 0, 0}} // genl header, struct ovs_header (dp_ifindex 0)
	msgs, err := nc.Execute(req)
	if err != nil {
		return nil, fmt.Errorf("get OVS zone limits: %w", err)
	}
	out := &model.ZoneLimits{}
	for _, m := range msgs {
		if err := ParseZoneLimits(m.Data, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// familyID resolves ovs_ct_limit's family number.
func familyID(nc *netlink.Conn) (uint16, error) {
	ae := netlink.NewAttributeEncoder()
	ae.String(ctrlAttrFamilyName, family)
	attrs, err := ae.Encode()
	if err != nil {
		return 0, err
	}
	msgs, err := nc.Execute(netlink.Message{Header: netlink.Header{Type: genlIDCtrl, Flags: netlink.Request},
		Data: append([]byte{ctrlCmdGetFamily, 1, 0, 0}, attrs...)})
	if errors.Is(err, syscall.ENOENT) {
		return 0, ErrNotPresent
	}
	if err != nil {
		return 0, fmt.Errorf("resolve %s: %w", family, err)
	}
	for _, m := range msgs {
		if len(m.Data) < genlHeaderLen {
			continue
		}
		a := nldump.AttrsOf(m.Data[genlHeaderLen:])
		for typ, v, ok := a.Next(); ok; typ, v, ok = a.Next() {
			if typ == ctrlAttrFamilyID && len(v) == 2 {
				return binary.NativeEndian.Uint16(v), nil
			}
		}
	}
	return 0, ErrNotPresent
}

// ParseZoneLimits reads one reply's body (the generic netlink header,
// struct ovs_header, then the zone limits' attribute) into out: the
// default and each zone's limit, at most model.MaxZoneLimits zones. A
// malformed reply is an error, never a panic.
func ParseZoneLimits(data []byte, out *model.ZoneLimits) error {
	if len(data) < genlHeaderLen+ovsHeaderLen {
		return fmt.Errorf("decode OVS zone limits: %d bytes, no header", len(data))
	}
	a := nldump.AttrsOf(data[genlHeaderLen+ovsHeaderLen:])
	for typ, v, ok := a.Next(); ok; typ, v, ok = a.Next() {
		if typ != attrZoneLimit {
			continue
		}
		for ; len(v) >= zoneLimitLen; v = v[zoneLimitLen:] {
			zone, limit := int32(binary.NativeEndian.Uint32(v)), binary.NativeEndian.Uint32(v[4:])
			switch {
			case zone == defaultZone:
				out.Default = limit
			case zone >= 0 && zone <= 0xffff && len(out.Zones) < model.MaxZoneLimits:
				out.Zones = append(out.Zones, model.ZoneLimit{Zone: uint16(zone), Limit: limit})
			}
		}
	}
	if a.Err() != nil {
		return fmt.Errorf("decode OVS zone limits: %w", a.Err())
	}
	return nil
}
