package ctnetlink

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tablefull/tablefull/sources/kernelfs"
)

// newAndDestroy are the groups joinEvents joins for counting and
// following: NEW and DESTROY.
const newAndDestroy = uint32(1<<(groupCTNew-1) | 1<<(groupCTDestroy-1))

// joinEvents opens a ctnetlink socket in the caller's network namespace
// joined to groups (a bit per group), its receive buffer readBuffer
// bytes, and returns it with its netlink port.
func joinEvents(readBuffer int, groups uint32) (fd int, portID uint32, err error) {
	fd, err = unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return -1, 0, fmt.Errorf("open ctnetlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		unix.Close(fd)
		if errors.Is(err, syscall.EPERM) {
			return -1, 0, fmt.Errorf("join conntrack events: %w (CAP_NET_ADMIN)", kernelfs.ErrPermission)
		}
		return -1, 0, fmt.Errorf("join conntrack events: %w", err)
	}
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, readBuffer) != nil {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, readBuffer)
	}
	if sa, err := unix.Getsockname(fd); err == nil {
		if nl, ok := sa.(*unix.SockaddrNetlink); ok {
			portID = nl.Pid
		}
	}
	return fd, portID, nil
}

// receiveEvents drains fd without blocking every eventsBatch until stop,
// handing each datagram to got and each ENOBUFS (events the kernel
// dropped for us) to overrun; failed is called when the socket fails.
// It closes fd and done when it returns.
func receiveEvents(fd int, stop *atomic.Bool, done chan struct{}, got func([]byte), overrun, failed func()) {
	defer close(done)
	defer unix.Close(fd)
	buf := make([]byte, 64<<10)
	for !stop.Load() {
		n, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		switch {
		case errors.Is(err, unix.EAGAIN):
			time.Sleep(eventsBatch)
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.ENOBUFS):
			overrun()
		case err != nil:
			failed()
			return
		default:
			got(buf[:n])
		}
	}
}

// eachMessage hands each netlink message of one datagram to fn: its
// type, its nlmsg_pid and its body. A malformed one ends the datagram.
func eachMessage(b []byte, fn func(typ uint16, portID uint32, body []byte)) {
	for len(b) >= unix.NLMSG_HDRLEN {
		l := int(binary.NativeEndian.Uint32(b))
		typ := binary.NativeEndian.Uint16(b[4:])
		if l < unix.NLMSG_HDRLEN || l > len(b) {
			return
		}
		fn(typ, binary.NativeEndian.Uint32(b[12:]), b[unix.NLMSG_HDRLEN:l])
		b = b[min(len(b), (l+3)&^3):]
	}
}

// lostEvents is how many events a listener lost: the socket's drops since
// it joined where /proc/net/netlink lists them, at least one per overrun.
func lostEvents(procRoot string, portID uint32, dropsAt, overruns uint64) uint64 {
	if d, err := socketDrops(procRoot, portID); err == nil && d >= dropsAt {
		return max(overruns, d-dropsAt)
	}
	return overruns
}

// socketDrops reads a NETLINK_NETFILTER socket's drop count from
// /proc/net/netlink ("sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode").
func socketDrops(procRoot string, pid uint32) (uint64, error) {
	f, err := os.Open(filepath.Join(procRoot, "net", "netlink"))
	if err != nil {
		return 0, fmt.Errorf("read netlink sockets: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := strconv.FormatUint(uint64(pid), 10)
	for sc.Scan() {
		col := strings.Fields(sc.Text())
		if len(col) >= 9 && col[1] == strconv.Itoa(unix.NETLINK_NETFILTER) && col[2] == want {
			return strconv.ParseUint(col[8], 10, 64)
		}
	}
	return 0, fmt.Errorf("netlink socket %d not listed", pid)
}

// socketFaults are the overrun and failure callbacks of receiveEvents for
// a receiver whose mu guards its overruns and failed.
func socketFaults(mu *sync.Mutex, overruns *uint64, failed *bool) (overrun, fail func()) {
	return func() {
			mu.Lock()
			*overruns++
			mu.Unlock()
		}, func() {
			mu.Lock()
			*failed = true
			mu.Unlock()
		}
}
