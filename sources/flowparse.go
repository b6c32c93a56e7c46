package sources

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"github.com/mdlayher/netlink"

	"github.com/tablefull/tablefull/model"
)

// nfgenmsgLen is the netfilter header before a ctnetlink message's
// attributes (family, version, resource id).
const nfgenmsgLen = 4

// errAttr reports a damaged netlink attribute.
var errAttr = errors.New("malformed netlink attribute")

// attrs walks netlink attributes in place: no copies, no allocations, so
// it can read every event of a busy table. Lengths and types are in host
// order, ctnetlink's values in network order.
type attrs struct {
	b   []byte
	err error
}

// next returns the next attribute's type (flags masked) and value.
func (a *attrs) next() (uint16, []byte, bool) {
	if a.err != nil || len(a.b) == 0 {
		return 0, nil, false
	}
	if len(a.b) < 4 {
		a.err = fmt.Errorf("%w: %d bytes left", errAttr, len(a.b))
		return 0, nil, false
	}
	l := int(binary.NativeEndian.Uint16(a.b))
	typ := binary.NativeEndian.Uint16(a.b[2:]) & 0x3fff // NLA_TYPE_MASK
	if l < 4 || l > len(a.b) {
		a.err = fmt.Errorf("%w: length %d of %d", errAttr, l, len(a.b))
		return 0, nil, false
	}
	v := a.b[4:l]
	a.b = a.b[min(len(a.b), (l+3)&^3):]
	return typ, v, true
}

// ParseFlow reads the counted parts of one conntrack message: protocol,
// original addresses and destination port, TCP state, status bits. A
// malformed message is an error, never a panic.
func ParseFlow(m netlink.Message) (model.Flow, error) { return parseFlow(m.Data) }

// parseFlow reads a ctnetlink message's body (after the netlink header).
func parseFlow(data []byte) (model.Flow, error) {
	f := model.Flow{TCPState: -1}
	if len(data) < nfgenmsgLen {
		return f, fmt.Errorf("decode flow: %d bytes, no netfilter header", len(data))
	}
	top := attrs{b: data[nfgenmsgLen:]}
	for typ, v, ok := top.next(); ok; typ, v, ok = top.next() {
		switch typ {
		case ctaTupleOrig:
			if err := parseTuple(v, &f); err != nil {
				return f, err
			}
		case ctaStatus:
			if len(v) == 4 {
				f.Status = binary.BigEndian.Uint32(v)
			}
		case ctaTimeout:
			if len(v) == 4 {
				f.Timeout = binary.BigEndian.Uint32(v)
			}
		case ctaProtoinfo:
			if err := parseTCPState(v, &f); err != nil {
				return f, err
			}
		}
	}
	if top.err != nil {
		return f, fmt.Errorf("decode flow attributes: %w", top.err)
	}
	return f, nil
}

func parseTuple(b []byte, f *model.Flow) error {
	t := attrs{b: b}
	for typ, v, ok := t.next(); ok; typ, v, ok = t.next() {
		inner := attrs{b: v}
		switch typ {
		case ctaTupleIP:
			for ityp, iv, ok := inner.next(); ok; ityp, iv, ok = inner.next() {
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
					f.Src = a
				case ctaIPv4Dst, ctaIPv6Dst:
					f.Dst = a
				}
			}
		case ctaTupleProto:
			for ityp, iv, ok := inner.next(); ok; ityp, iv, ok = inner.next() {
				switch {
				case ityp == ctaProtoNum && len(iv) == 1:
					f.Proto = iv[0]
				case ityp == ctaProtoSrcPort && len(iv) == 2:
					f.SrcPort = binary.BigEndian.Uint16(iv)
				case ityp == ctaProtoDstPort && len(iv) == 2:
					f.DstPort = binary.BigEndian.Uint16(iv)
				}
			}
		default:
			continue
		}
		if inner.err != nil {
			return fmt.Errorf("decode flow tuple: %w", inner.err)
		}
	}
	if t.err != nil {
		return fmt.Errorf("decode flow tuple: %w", t.err)
	}
	return nil
}

func parseTCPState(b []byte, f *model.Flow) error {
	pi := attrs{b: b}
	for typ, v, ok := pi.next(); ok; typ, v, ok = pi.next() {
		if typ != ctaProtoinfoTCP {
			continue
		}
		tcp := attrs{b: v}
		for ttyp, tv, ok := tcp.next(); ok; ttyp, tv, ok = tcp.next() {
			if ttyp == ctaProtoinfoTCPState && len(tv) == 1 {
				f.TCPState = int(tv[0])
			}
		}
		if tcp.err != nil {
			return fmt.Errorf("decode tcp protoinfo: %w", tcp.err)
		}
	}
	if pi.err != nil {
		return fmt.Errorf("decode protoinfo: %w", pi.err)
	}
	return nil
}
