package ctnetlink

import (
	"testing"

	"github.com/mdlayher/netlink"
)

// FuzzNetlinkStats: any netlink reply decodes to an error or to one row
// per message, never a panic.
func FuzzNetlinkStats(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 8, 0, 3, 0, 0, 0, 0, 5})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs := []netlink.Message{{Header: netlink.Header{Type: 0x0104}, Data: data}}
		s, err := decodeNetlinkStats(msgs)
		if err == nil && len(s.PerCPU) != 1 {
			t.Fatalf("%d rows from one message", len(s.PerCPU))
		}
	})
}
