package owners

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/tablefull/tablefull/sources/nldump"
	"golang.org/x/sys/unix"
)

// sock_diag's numbers (linux/sock_diag.h, linux/inet_diag.h).
const (
	sockDiagByFamily = 20 // SOCK_DIAG_BY_FAMILY
	// inetDiagReqLen is struct inet_diag_req_v2; inetDiagMsgLen is struct
	// inet_diag_msg, before its attributes.
	inetDiagReqLen = 56
	inetDiagMsgLen = 72
	// inetDiagCgroupID is INET_DIAG_CGROUP_ID (5.8+): the cgroup v2 id of
	// the socket's creator, for full sockets only.
	inetDiagCgroupID = 21
	// tcpListen is TCP_LISTEN, sock_diag's state number of a listener.
	tcpListen = 10
	// allStates asks for sockets in every state.
	allStates = 0xffffffff
)

// SocketRow is one socket of a sock_diag dump. Addresses are the socket's
// own view: Local is this host's end.
type SocketRow struct {
	Proto  uint8
	State  uint8
	Local  netip.AddrPort
	Remote netip.AddrPort
	// Inode is the socket's inode (0 for TIME_WAIT and request sockets,
	// which no process holds); Cgroup its creator's cgroup v2 id (0: not
	// told).
	Inode  uint32
	UID    uint32
	Cgroup uint64
	// RQueue and WQueue are, for a listener, its accept queue's length and
	// its backlog (as capped by somaxconn); for others, bytes queued.
	RQueue, WQueue uint32
}

// SocketDump lists the caller's network namespace's TCP and UDP sockets
// over NETLINK_SOCK_DIAG, one message at a time into one buffer. Reading
// its own user's sockets needs nothing; everyone's, and the cgroup ids,
// work unprivileged too (inet_diag does not check), but the owners'
// processes need root to be found.
type SocketDump struct {
	// Timeout bounds each dump.
	Timeout time.Duration
}

// Each calls each for every socket of proto (unix.IPPROTO_TCP or
// IPPROTO_UDP), IPv4 then IPv6, in the states of the bit mask states
// (1<<state; allStates for all).
func (d SocketDump) Each(proto uint8, states uint32, each func(SocketRow)) error {
	nc, err := netlink.Dial(unix.NETLINK_SOCK_DIAG, nil)
	if err != nil {
		return fmt.Errorf("dial sock_diag: %w", err)
	}
	defer nc.Close()
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		if d.Timeout > 0 {
			if err := nc.SetReadDeadline(time.Now().Add(d.Timeout)); err != nil {
				return fmt.Errorf("set deadline: %w", err)
			}
		}
		req, err := nc.Send(netlink.Message{
			Header: netlink.Header{Type: sockDiagByFamily, Flags: netlink.Request | netlink.Dump},
			Data:   inetDiagRequest(family, proto, states),
		})
		if err != nil {
			return fmt.Errorf("send sock_diag dump: %w", err)
		}
		err = nldump.Receive(nc, req.Header.Sequence, func(m netlink.Message) error {
			row, err := parseSocket(m.Data, proto)
			if err != nil {
				return err
			}
			each(row)
			return nil
		})
		if errors.Is(err, syscall.ENOENT) && family == unix.AF_INET6 {
			continue // no IPv6 on this kernel
		}
		if err != nil {
			return fmt.Errorf("sock_diag dump of %s: %w", protoName(proto), err)
		}
	}
	return nil
}

// inetDiagRequest is struct inet_diag_req_v2 for a dump of every socket
// of family and proto in states.
func inetDiagRequest(family, proto uint8, states uint32) []byte {
	b := make([]byte, inetDiagReqLen)
	b[0], b[1] = family, proto
	binary.NativeEndian.PutUint32(b[4:], states)
	return b
}

// parseSocket reads struct inet_diag_msg and its cgroup attribute.
func parseSocket(b []byte, proto uint8) (SocketRow, error) {
	if len(b) < inetDiagMsgLen {
		return SocketRow{}, fmt.Errorf("decode socket: %d bytes, want %d", len(b), inetDiagMsgLen)
	}
	r := SocketRow{Proto: proto, State: b[1]}
	sport, dport := binary.BigEndian.Uint16(b[4:]), binary.BigEndian.Uint16(b[6:])
	var src, dst netip.Addr
	switch b[0] {
	case unix.AF_INET:
		src, dst = netip.AddrFrom4([4]byte(b[8:12])), netip.AddrFrom4([4]byte(b[24:28]))
	case unix.AF_INET6:
		src, dst = netip.AddrFrom16([16]byte(b[8:24])).Unmap(), netip.AddrFrom16([16]byte(b[24:40])).Unmap()
	default:
		return SocketRow{}, fmt.Errorf("decode socket: family %d", b[0])
	}
	r.Local, r.Remote = netip.AddrPortFrom(src, sport), netip.AddrPortFrom(dst, dport)
	r.RQueue = binary.NativeEndian.Uint32(b[56:])
	r.WQueue = binary.NativeEndian.Uint32(b[60:])
	r.UID = binary.NativeEndian.Uint32(b[64:])
	r.Inode = binary.NativeEndian.Uint32(b[68:])
	a := nldump.AttrsOf(b[inetDiagMsgLen:])
	for typ, v, ok := a.Next(); ok; typ, v, ok = a.Next() {
		if typ == inetDiagCgroupID && len(v) == 8 {
			r.Cgroup = binary.NativeEndian.Uint64(v)
		}
	}
	if a.Err() != nil {
		return SocketRow{}, fmt.Errorf("decode socket attributes: %w", a.Err())
	}
	return r, nil
}

// protoName is "tcp" or "udp" for messages.
func protoName(proto uint8) string {
	if proto == unix.IPPROTO_UDP {
		return "udp"
	}
	return "tcp"
}
