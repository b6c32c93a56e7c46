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

// ethtoolBuffers are the strings' and the values' buffers, sized for
// maxStats whatever the driver said: the kernel writes the count it has
// at the strings and stats calls, not the one asked for, so a driver
// whose count grew since the driver-info call (ethtool -L, an XDP
// attach) would write past buffers sized to the first count. Kept
// between reads: a NIC read every sample allocates them once.
type ethtoolBuffers struct{ names, values []byte }

// stats reads an interface's driver name and its driver's statistics by
// name (ETHTOOL_GDRVINFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS: `ethtool -i`
// and `ethtool -S`).
func (b *ethtoolBuffers) stats(iface string) (string, map[string]uint64, error) {
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
	stats, err := b.read(info.N_stats, func(buf []byte) error { return ethtool(fd, iface, buf) })
	if err != nil {
		return driver, nil, fmt.Errorf("ethtool statistics of %s: %w", iface, err)
	}
	return driver, stats, nil
}

// read asks for n statistics' names and values through call (one
// SIOCETHTOOL command whose struct is its buffer) and returns them by
// name; nil for a driver with none or more than maxStats. A count the
// kernel returns past what the buffers hold is an error, never read.
func (b *ethtoolBuffers) read(n uint32, call func(buf []byte) error) (map[string]uint64, error) {
	if n == 0 || n > maxStats {
		return nil, nil
	}
	if b.names == nil {
		b.names, b.values = make([]byte, 12+maxStats*ethStringLen), make([]byte, 8+maxStats*8)
	}
	names, values := b.names, b.values
	binary.NativeEndian.PutUint32(names[0:], unix.ETHTOOL_GSTRINGS) // struct ethtool_gstrings
	binary.NativeEndian.PutUint32(names[4:], ethSSStats)
	binary.NativeEndian.PutUint32(names[8:], n)
	if err := call(names); err != nil {
		return nil, fmt.Errorf("names: %w", err)
	}
	binary.NativeEndian.PutUint32(values[0:], unix.ETHTOOL_GSTATS) // struct ethtool_stats
	binary.NativeEndian.PutUint32(values[4:], n)
	if err := call(values); err != nil {
		return nil, err
	}
	gotNames, gotValues := binary.NativeEndian.Uint32(names[8:]), binary.NativeEndian.Uint32(values[4:])
	if gotNames > maxStats || gotValues > maxStats {
		return nil, fmt.Errorf("the driver returned %d names and %d values, past the %d read", gotNames, gotValues, maxStats)
	}
	got := min(gotNames, gotValues)
	stats := make(map[string]uint64, got)
	for i := range int(got) {
		name := unix.ByteSliceToString(names[12+i*ethStringLen : 12+(i+1)*ethStringLen])
		stats[name] = binary.NativeEndian.Uint64(values[8+i*8:])
	}
	return stats, nil
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
