package sources

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
	names, err := d.fs.SysBlockDevices()
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", filepath.Join(d.sysRoot, "block"), err)
	}
	var out []model.DiskIO
	var errs []error
	for _, name := range names {
		if skipDevice(name) {
			continue
		}
		st, _, err := d.fs.SysBlockDeviceStat(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("read disk %s: %w", name, err))
			continue
		}
		out = append(out, model.DiskIO{Name: name, Reads: st.ReadIOs, Writes: st.WriteIOs, BusyMillis: st.IOsTotalTicks})
	}
	return out, errors.Join(errs...)
}

func skipDevice(name string) bool {
	for _, p := range []string{"loop", "ram", "zram", "fd"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
