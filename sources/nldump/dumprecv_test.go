package nldump

import (
	"encoding/binary"
	"errors"
	"syscall"
	"testing"

	"github.com/mdlayher/netlink"
)

// nlmsg is one netlink message: header and data, padded to 4 bytes.
func nlmsg(typ uint16, flags uint16, seq uint32, data []byte) []byte {
	b := make([]byte, 16, 16+len(data)+3)
	binary.NativeEndian.PutUint32(b[0:], uint32(16+len(data)))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	binary.NativeEndian.PutUint32(b[8:], seq)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func errno(code int32) []byte {
	b := make([]byte, 4)
	binary.NativeEndian.PutUint32(b, uint32(code))
	return b
}

func TestEachMessage(t *testing.T) {
	flow := func(n byte) []byte { return nlmsg(0x0100, 0x2, 7, []byte{2, 0, 0, 0, n}) } // 5 bytes: padded
	for _, tt := range []struct {
		name      string
		datagram  []byte
		messages  int
		done      bool
		wantErr   error
		anyErrMsg bool
	}{
		{"two flows, the dump goes on", append(flow(1), flow(2)...), 2, false, nil, false},
		{"flows then done", append(append(flow(1), flow(2)...), nlmsg(uint16(netlink.Done), 0x2, 7, errno(0))...), 2, true, nil, false},
		{"permission", nlmsg(uint16(netlink.Error), 0, 7, errno(-1)), 0, false, syscall.EPERM, false},
		{"an ack is not an error", nlmsg(uint16(netlink.Error), 0, 7, errno(0)), 0, false, nil, false},
		{"another request's answer", nlmsg(0x0100, 0x2, 8, nil), 0, false, nil, true},
		{"a length past the datagram", flow(1)[:12+8], 0, false, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			done, err := eachMessage(tt.datagram, 7, func(m netlink.Message) error {
				if len(m.Data) != 5 {
					t.Errorf("a message's data is %d bytes, want 5 (its padding cut)", len(m.Data))
				}
				n++
				return nil
			})
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("error %v, want %v", err, tt.wantErr)
			case tt.anyErrMsg && err == nil:
				t.Error("no error")
			case tt.wantErr == nil && !tt.anyErrMsg && err != nil:
				t.Errorf("error %v", err)
			}
			if n != tt.messages || done != tt.done {
				t.Errorf("%d messages, done %v; want %d, %v", n, done, tt.messages, tt.done)
			}
		})
	}
}
