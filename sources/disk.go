package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/prometheus/procfs/blockdevice"

	"github.com/tablefull/tablefull/model"
)

// Disk reads block device counters from /proc/diskstats, keeping whole
// disks only: no partitions, loop, ram or zram devices.
type Disk struct {
	fs      blockdevice.FS
	sysRoot string
}

// NewDisk reads under procRoot and sysRoot (normally /proc and /sys).
func NewDisk(procRoot, sysRoot string) (*Disk, error) {
	fs, err := blockdevice.NewFS(procRoot, sysRoot)
	if err != nil {
		return nil, fmt.Errorf("open block devices: %w", err)
	}
	return &Disk{fs: fs, sysRoot: sysRoot}, nil
}

// Read returns the counters of every whole disk.
func (d *Disk) Read() ([]model.DiskIO, error) {
	stats, err := d.fs.ProcDiskstats()
	if err != nil {
		return nil, fmt.Errorf("read diskstats: %w", err)
	}
	whole := d.wholeDisks()
	var out []model.DiskIO
	for _, s := range stats {
		name := s.Info.DeviceName
		if skipDevice(name) || (whole != nil && !whole[name]) {
			continue
		}
		out = append(out, model.DiskIO{Name: name, Reads: s.IOStats.ReadIOs, Writes: s.IOStats.WriteIOs,
			BusyMillis: s.IOStats.IOsTotalTicks})
	}
	return out, nil
}

// wholeDisks lists /sys/block, where partitions do not appear; nil when
// it cannot be read (then every non-virtual device is kept).
func (d *Disk) wholeDisks() map[string]bool {
	entries, err := os.ReadDir(filepath.Join(d.sysRoot, "block"))
	if err != nil || len(entries) == 0 {
		return nil
	}
	m := make(map[string]bool, len(entries))
	for _, e := range entries {
		m[e.Name()] = true
	}
	return m
}

func skipDevice(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "fd"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
