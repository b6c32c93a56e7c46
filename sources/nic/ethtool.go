package nic

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxStats bounds the statistics a driver may say it has.
const maxStats = 4096

// ethStringLen is ETH_GSTRING_LEN; ethSSStats is ETH_SS_STATS.
const (
	ethStringLen = 32
	ethSSStats   = 1
)

// ifreqData is struct ifreq carrying a pointer (ifr_data), as
// SIOCETHTOOL takes it.
type ifreqData struct {
	name [unix.IFNAMSIZ]byte
	data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte
}

// EthtoolStats reads an interface's driver name and its driver's
// statistics by name (ETHTOOL_GDRVINFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS:
// `ethtool -i` and `ethtool -S`).
func EthtoolStats(iface string) (string, map[string]uint64, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", nil, fmt.Errorf("ethtool socket: %w", err)
	}
	defer unix.Close(fd)
	info, err := unix.IoctlGetEthtoolDrvinfo(fd, iface)
	if err != nil {
		return "", nil, fmt.Errorf("ethtool driver info of %s: %w", iface, err)
	}
	driver := unix.ByteSliceToString(info.Driver[:])
	n := info.N_stats
	if n == 0 || n > maxStats {
		return driver, nil, nil
	}
	names := make([]byte, 12+int(n)*ethStringLen) // struct ethtool_gstrings
	binary.NativeEndian.PutUint32(names[0:], unix.ETHTOOL_GSTRINGS)
	binary.NativeEndian.PutUint32(names[4:], ethSSStats)
	binary.NativeEndian.PutUint32(names[8:], n)
	if err := ethtool(fd, iface, names); err != nil {
		return driver, nil, fmt.Errorf("ethtool statistics' names of %s: %w", iface, err)
	}
	values := make([]byte, 8+int(n)*8) // struct ethtool_stats
	binary.NativeEndian.PutUint32(values[0:], unix.ETHTOOL_GSTATS)
	binary.NativeEndian.PutUint32(values[4:], n)
	if err := ethtool(fd, iface, values); err != nil {
		return driver, nil, fmt.Errorf("ethtool statistics of %s: %w", iface, err)
	}
	got := min(n, binary.NativeEndian.Uint32(names[8:]), binary.NativeEndian.Uint32(values[4:]))
	stats := make(map[string]uint64, got)
	for i := range int(got) {
		name := unix.ByteSliceToString(names[12+i*ethStringLen : 12+(i+1)*ethStringLen])
		stats[name] = binary.NativeEndian.Uint64(values[8+i*8:])
	}
	return driver, stats, nil
}

// ethtool runs one SIOCETHTOOL command whose struct is buf.
func ethtool(fd int, iface string, buf []byte) error {
	var r ifreqData
	copy(r.name[:unix.IFNAMSIZ-1], iface)
	r.data = unsafe.Pointer(&buf[0])
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&r))); errno != 0 {
		return errno
	}
	return nil
}
