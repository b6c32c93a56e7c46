package ctnetlink

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"

	"github.com/tablefull/tablefull/model"
)

// flowMessage builds a ctnetlink flow message the way the kernel does.
func flowMessage(t testing.TB) netlink.Message {
	ae := netlink.NewAttributeEncoder()
	ae.ByteOrder = binary.BigEndian
	ae.Nested(ctaTupleOrig, func(t *netlink.AttributeEncoder) error {
		t.Nested(ctaTupleIP, func(ip *netlink.AttributeEncoder) error {
			ip.Bytes(ctaIPv4Src, netip.MustParseAddr("10.5.5.15").AsSlice())
			ip.Bytes(ctaIPv4Dst, netip.MustParseAddr("10.5.5.14").AsSlice())
			return nil
		})
		t.Nested(ctaTupleProto, func(p *netlink.AttributeEncoder) error {
			p.Uint8(ctaProtoNum, 6)
			p.Uint16(ctaProtoDstPort, 3900)
			return nil
		})
		return nil
	})
	ae.Nested(ctaTupleReply, func(t *netlink.AttributeEncoder) error {
		t.Nested(ctaTupleIP, func(ip *netlink.AttributeEncoder) error {
			ip.Bytes(ctaIPv4Src, netip.MustParseAddr("10.244.1.7").AsSlice())
			ip.Bytes(ctaIPv4Dst, netip.MustParseAddr("10.5.5.15").AsSlice())
			return nil
		})
		t.Nested(ctaTupleProto, func(p *netlink.AttributeEncoder) error {
			p.Uint8(ctaProtoNum, 6)
			p.Uint16(ctaProtoSrcPort, 3901)
			return nil
		})
		return nil
	})
	ae.Uint32(ctaTimeout, 431000)
	ae.Uint32(ctaMark, 0x2a)
	for dir, n := range []uint64{7, 5} { // accounting on: packets and bytes each way
		ae.Nested(uint16(ctaCountOrig+dir), func(c *netlink.AttributeEncoder) error {
			c.Uint64(ctaCountersPackets, n)
			c.Uint64(ctaCountersBytes, n*100)
			return nil
		})
	}
	ae.Uint16(ctaZone, 5)
	ae.Nested(ctaProtoinfo, func(pi *netlink.AttributeEncoder) error {
		pi.Nested(ctaProtoinfoTCP, func(tcp *netlink.AttributeEncoder) error {
			tcp.Uint8(ctaProtoinfoTCPState, 7)
			return nil
		})
		return nil
	})
	m, err := netfilter.EncodeNetlink(netfilter.Header{SubsystemID: netfilter.NFSubsysCTNetlink, MessageType: 0}, ae)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseFlow(t *testing.T) {
	m := flowMessage(t)
	f, err := ParseFlow(m)
	want := model.Flow{Proto: 6, Src: netip.MustParseAddr("10.5.5.15"), Dst: netip.MustParseAddr("10.5.5.14"), DstPort: 3900, TCPState: 7, Timeout: 431000, Zone: 5,
		ReplySrc: netip.MustParseAddr("10.244.1.7"), ReplySrcPort: 3901, ReplyDst: netip.MustParseAddr("10.5.5.15"), Mark: 0x2a,
		Packets: [2]uint64{7, 5}, Bytes: [2]uint64{700, 500}, Accounted: true}
	if err != nil || f != want {
		t.Fatalf("ParseFlow = %+v, %v; want %+v", f, err, want)
	}
	// Every truncation is an error or a partial flow, never a panic.
	errs := 0
	for n := range len(m.Data) {
		cut := netlink.Message{Header: m.Header, Data: m.Data[:n]}
		if _, err := ParseFlow(cut); err != nil {
			errs++
		}
	}
	if errs == 0 {
		t.Errorf("no truncation was reported as an error")
	}
	// A wrong-sized state or port is ignored, not read out of bounds.
	bad := netlink.Message{Header: m.Header, Data: append([]byte(nil), m.Data...)}
	for i := range bad.Data {
		bad.Data[i] ^= 0xff
		ParseFlow(bad)
		bad.Data[i] ^= 0xff
	}
}

func FuzzParseFlow(f *testing.F) {
	f.Add(flowMessage(f).Data)
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseFlow(netlink.Message{Data: b})
	})
}
