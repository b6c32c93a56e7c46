package nldump

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// dumpBuffer is what one recv reads of a dump: the kernel fills a
// datagram up to a page or two (ctnetlink: about 16 KiB), so 64 KiB never
// truncates one.
const dumpBuffer = 64 << 10

// Receive reads the answer to the dump request seq on nc, one
// datagram at a time into one buffer, and hands each message to each
// (its Data is valid only during the call). mdlayher/netlink's
// ReceiveIter copies every datagram into a new slice: a census of
// 262,144 entries churned 85 MB through the heap. It ends at NLMSG_DONE,
// returns the kernel's error for NLMSG_ERROR (a syscall.Errno), and the
// read deadline set on nc applies.
func Receive(nc *netlink.Conn, seq uint32, each func(netlink.Message) error) error {
	rc, err := nc.SyscallConn()
	if err != nil {
		return fmt.Errorf("receive dump: %w", err)
	}
	buf := make([]byte, dumpBuffer)
	for {
		var n int
		var recvErr error
		if err := rc.Read(func(fd uintptr) bool {
			n, _, recvErr = unix.Recvfrom(int(fd), buf, 0)
			return !errors.Is(recvErr, unix.EAGAIN)
		}); err != nil {
			return fmt.Errorf("receive dump: %w", err)
		}
		if recvErr != nil {
			return fmt.Errorf("receive dump: %w", recvErr)
		}
		done, err := eachMessage(buf[:n], seq, each)
		if err != nil || done {
			return err
		}
	}
}

// eachMessage walks one datagram's messages; done is true at NLMSG_DONE.
func eachMessage(b []byte, seq uint32, each func(netlink.Message) error) (done bool, err error) {
	for len(b) >= unix.NLMSG_HDRLEN {
		h := netlink.Header{
			Length:   binary.NativeEndian.Uint32(b[0:4]),
			Type:     netlink.HeaderType(binary.NativeEndian.Uint16(b[4:6])),
			Flags:    netlink.HeaderFlags(binary.NativeEndian.Uint16(b[6:8])),
			Sequence: binary.NativeEndian.Uint32(b[8:12]),
			PID:      binary.NativeEndian.Uint32(b[12:16]),
		}
		if h.Length < unix.NLMSG_HDRLEN || int(h.Length) > len(b) {
			return false, fmt.Errorf("receive dump: a message of %d bytes in %d", h.Length, len(b))
		}
		if h.Sequence != seq {
			return false, fmt.Errorf("receive dump: message of sequence %d, want %d", h.Sequence, seq)
		}
		data := b[unix.NLMSG_HDRLEN:h.Length]
		switch h.Type {
		case netlink.Done:
			return true, nil
		case netlink.Error:
			if len(data) < 4 {
				return false, fmt.Errorf("receive dump: a short error message")
			}
			if code := int32(binary.NativeEndian.Uint32(data)); code != 0 {
				return false, fmt.Errorf("receive dump: %w", syscall.Errno(-code))
			}
		case netlink.Noop:
		case netlink.Overrun:
			return false, fmt.Errorf("receive dump: the kernel overran the socket buffer")
		default:
			if err := each(netlink.Message{Header: h, Data: data}); err != nil {
				return false, err
			}
		}
		next := (int(h.Length) + unix.NLMSG_ALIGNTO - 1) &^ (unix.NLMSG_ALIGNTO - 1)
		if next >= len(b) {
			break
		}
		b = b[next:]
	}
	return false, nil
}
