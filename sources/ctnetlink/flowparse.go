package ctnetlink

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/mdlayher/netlink"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/nldump"
)

// nfgenmsgLen is the netfilter header before a ctnetlink message's
// attributes (family, version, resource id).
const nfgenmsgLen = 4

// ParseFlow reads the counted parts of one conntrack message: protocol,
// original addresses and destination port, TCP state, status bits,
// timeout, zone, and where replies come from. A
// malformed message is an error, never a panic.
func ParseFlow(m netlink.Message) (model.Flow, error) { return parseFlow(m.Data) }

// parseFlow reads a ctnetlink message's body (after the netlink header).
func parseFlow(data []byte) (model.Flow, error) {
	f := model.Flow{TCPState: -1}
	if len(data) < nfgenmsgLen {
		return f, fmt.Errorf("decode flow: %d bytes, no netfilter header", len(data))
	}
	top := nldump.AttrsOf(data[nfgenmsgLen:])
	for typ, v, ok := top.Next(); ok; typ, v, ok = top.Next() {
		switch typ {
		case ctaTupleOrig:
			var t tuple
			if err := parseTuple(v, &t); err != nil {
				return f, err
			}
			f.Proto, f.Src, f.Dst, f.SrcPort, f.DstPort, f.OrigZone = t.proto, t.src, t.dst, t.srcPort, t.dstPort, t.zone
		case ctaTupleReply:
			var t tuple
			if err := parseTuple(v, &t); err != nil {
				return f, err
			}
			f.ReplySrc, f.ReplySrcPort, f.ReplyDst, f.ReplyDstPort, f.ReplyZone = t.src, t.srcPort, t.dst, t.dstPort, t.zone
		case ctaStatus:
			if len(v) == 4 {
				f.Status = binary.BigEndian.Uint32(v)
			}
		case ctaTimeout:
			if len(v) == 4 {
				f.Timeout = binary.BigEndian.Uint32(v)
			}
		case ctaMark:
			if len(v) == 4 {
				f.Mark = binary.BigEndian.Uint32(v)
			}
		case ctaCountOrig, ctaCountReply:
			parseCounters(v, &f, int(typ-ctaCountOrig))
		case ctaLabels: // the kernel's unsigned longs, in its byte order
			if len(v) >= 8 {
				f.Labels[0] = binary.NativeEndian.Uint64(v)
			}
			if len(v) >= 16 {
				f.Labels[1] = binary.NativeEndian.Uint64(v[8:])
			}
		case ctaZone:
			if len(v) == 2 {
				f.Zone = binary.BigEndian.Uint16(v)
			}
		case ctaID:
			if len(v) == 4 {
				f.ID = binary.BigEndian.Uint32(v)
			}
		case ctaProtoinfo:
			if err := parseTCPState(v, &f); err != nil {
				return f, err
			}
		}
	}
	if top.Err() != nil {
		return f, fmt.Errorf("decode flow attributes: %w", top.Err())
	}
	return f, nil
}

// tuple is one direction's addresses, protocol and ports, and its zone
// when the zone is that direction's only.
type tuple struct {
	proto            uint8
	src, dst         netip.Addr
	srcPort, dstPort uint16
	zone             uint16
}

func parseTuple(b []byte, f *tuple) error {
	t := nldump.AttrsOf(b)
	for typ, v, ok := t.Next(); ok; typ, v, ok = t.Next() {
		inner := nldump.AttrsOf(v)
		switch typ {
		case ctaTupleIP:
			for ityp, iv, ok := inner.Next(); ok; ityp, iv, ok = inner.Next() {
				var a netip.Addr
				switch len(iv) {
				case 4:
					a = netip.AddrFrom4([4]byte(iv))
				case 16:
					a = netip.AddrFrom16([16]byte(iv))
				default:
					continue
				}
				switch ityp {
				case ctaIPv4Src, ctaIPv6Src:
					f.src = a
				case ctaIPv4Dst, ctaIPv6Dst:
					f.dst = a
				}
			}
		case ctaTupleProto:
			for ityp, iv, ok := inner.Next(); ok; ityp, iv, ok = inner.Next() {
				switch {
				case ityp == ctaProtoNum && len(iv) == 1:
					f.proto = iv[0]
				case ityp == ctaProtoSrcPort && len(iv) == 2:
					f.srcPort = binary.BigEndian.Uint16(iv)
				case ityp == ctaProtoDstPort && len(iv) == 2:
					f.dstPort = binary.BigEndian.Uint16(iv)
				}
			}
		case ctaTupleZone:
			if len(v) == 2 {
				f.zone = binary.BigEndian.Uint16(v)
			}
			continue
		default:
			continue
		}
		if inner.Err() != nil {
			return fmt.Errorf("decode flow tuple: %w", inner.Err())
		}
	}
	if t.Err() != nil {
		return fmt.Errorf("decode flow tuple: %w", t.Err())
	}
	return nil
}

func parseTCPState(b []byte, f *model.Flow) error {
	pi := nldump.AttrsOf(b)
	for typ, v, ok := pi.Next(); ok; typ, v, ok = pi.Next() {
		if typ != ctaProtoinfoTCP {
			continue
		}
		tcp := nldump.AttrsOf(v)
		for ttyp, tv, ok := tcp.Next(); ok; ttyp, tv, ok = tcp.Next() {
			if ttyp == ctaProtoinfoTCPState && len(tv) == 1 {
				f.TCPState = int(tv[0])
			}
		}
		if tcp.Err() != nil {
			return fmt.Errorf("decode tcp protoinfo: %w", tcp.Err())
		}
	}
	if pi.Err() != nil {
		return fmt.Errorf("decode protoinfo: %w", pi.Err())
	}
	return nil
}

// parseCounters reads one direction's packets and bytes (dir 0 the
// original, 1 the reply); present only where accounting was on.
func parseCounters(b []byte, f *model.Flow, dir int) {
	c := nldump.AttrsOf(b)
	for typ, v, ok := c.Next(); ok; typ, v, ok = c.Next() {
		if len(v) != 8 {
			continue
		}
		switch typ {
		case ctaCountersPackets:
			f.Packets[dir], f.Accounted = binary.BigEndian.Uint64(v), true
		case ctaCountersBytes:
			f.Bytes[dir], f.Accounted = binary.BigEndian.Uint64(v), true
		}
	}
}
