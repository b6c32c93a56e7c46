package counters

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/prometheus/procfs/blockdevice"

	"github.com/tablefull/tablefull/model"
)

// Disk reads whole-disk counters from /sys/block/<disk>/stat: partitions
// do not appear there, and loop, ram and zram devices are skipped.
type Disk struct {
	fs      blockdevice.FS
	sysRoot string
	names   []string // the disks last listed
	reads   int      // reads since they were listed
}

// relistEvery is how many reads reuse one listing of /sys/block: listing
// a directory costs as much as reading a disk's counters, and disks come
// and go rarely. A disk that disappears is noticed at once (its read
// fails); a new one shows within this many intervals.
const relistEvery = 30

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
	if d.names == nil || d.reads >= relistEvery {
		names, err := d.fs.SysBlockDevices()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", filepath.Join(d.sysRoot, "block"), err)
		}
		d.names, d.reads = names, 0
	}
	d.reads++
	var out []model.DiskIO
	var errs []error
	for _, name := range d.names {
		if SkipDevice(name) {
			continue
		}
		st, _, err := d.fs.SysBlockDeviceStat(name)
		if err != nil {
			d.names = nil // list again next time: the disk may be gone
			errs = append(errs, fmt.Errorf("read disk %s: %w", name, err))
			continue
		}
		out = append(out, model.DiskIO{Name: name, Reads: st.ReadIOs, Writes: st.WriteIOs, BusyMillis: st.IOsTotalTicks})
	}
	return out, errors.Join(errs...)
}

// SkipDevice reports whether block device name is left out of the disk
// panel: loop, RAM and floppy devices.
func SkipDevice(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "fd"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
