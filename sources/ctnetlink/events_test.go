package ctnetlink

import (
	"encoding/binary"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/ti-mo/netfilter"

	"github.com/tablefull/tablefull/model"
)

// destroyEvent is a DESTROY event for a TCP entry in TIME_WAIT as the
// kernel sends it: timeout is the seconds left (0: the attribute is
// absent, as for an entry that ran out) and portID the deleter's port (0:
// the kernel ended it).
func destroyEvent(t *testing.T, timeout, portID uint32) []byte {
	t.Helper()
	ae := netlink.NewAttributeEncoder()
	ae.ByteOrder = binary.BigEndian
	ae.Nested(ctaTupleOrig, func(t *netlink.AttributeEncoder) error {
		t.Nested(ctaTupleProto, func(p *netlink.AttributeEncoder) error {
			p.Uint8(ctaProtoNum, 6)
			p.Uint16(ctaProtoDstPort, 80)
			return nil
		})
		return nil
	})
	if timeout > 0 {
		ae.Uint32(ctaTimeout, timeout)
	}
	ae.Nested(ctaProtoinfo, func(pi *netlink.AttributeEncoder) error {
		pi.Nested(ctaProtoinfoTCP, func(tcp *netlink.AttributeEncoder) error {
			tcp.Uint8(ctaProtoinfoTCPState, 7) // TIME_WAIT
			return nil
		})
		return nil
	})
	m, err := netfilter.EncodeNetlink(netfilter.Header{SubsystemID: netfilter.NFSubsysCTNetlink, MessageType: ctMsgDelete}, ae)
	if err != nil {
		t.Fatal(err)
	}
	m.Header.PID = portID
	m.Header.Length = uint32(16 + len(m.Data))
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEvictedIsTheKernelsOwnEarlyEnd: a DESTROY event counts as evicted
// only when the kernel sent it on its own (no deleter's port) for an
// entry with time left; one that ran out, and one conntrack -D deleted,
// end without being evicted.
func TestEvictedIsTheKernelsOwnEarlyEnd(t *testing.T) {
	for _, c := range []struct {
		name            string
		timeout, portID uint32
		evicted         uint64
	}{
		{"the collector cut 100 s short", 100, 0, 1},
		{"ran out", 0, 0, 0},
		{"deleted by conntrack -D", 100, 4202585667, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := NewEntryEvents("/proc")
			eachMessage(destroyEvent(t, c.timeout, c.portID), e.countOneLocked)
			cl := model.ClassTCPDone
			if e.counts.Ended[cl] != 1 || e.counts.Evicted[cl] != c.evicted {
				t.Errorf("ended %v, evicted %v; want 1 ended in %s, %d evicted", e.counts.Ended, e.counts.Evicted, cl, c.evicted)
			}
		})
	}
}
