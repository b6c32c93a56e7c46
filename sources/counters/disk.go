package counters

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prometheus/procfs/blockdevice"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Disk reads whole-disk counters from /sys/block/<disk>/stat: partitions
// do not appear there, and loop, ram and zram devices are skipped. Each
// disk's file stays open between reads (a 24-disk host's sample opened,
// registered with Go's poller and closed 24 files a second otherwise).
type Disk struct {
	fs      blockdevice.FS
	sysRoot string
	names   []string // the disks last listed
	reads   int      // reads since they were listed
	files   map[string]*kernelfs.OpenFile
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
	return &Disk{fs: fs, sysRoot: sysRoot, files: map[string]*kernelfs.OpenFile{}}, nil
}

// Read returns the counters of every whole disk.
func (d *Disk) Read() ([]model.DiskIO, error) {
	if d.names == nil || d.reads >= relistEvery {
		names, err := d.fs.SysBlockDevices()
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", filepath.Join(d.sysRoot, "block"), err)
		}
		d.names, d.reads = names, 0
		d.keepOpen(names)
	}
	d.reads++
	var out []model.DiskIO
	var errs []error
	for _, name := range d.names {
		if SkipDevice(name) {
			continue
		}
		io, err := d.read(name)
		if err != nil {
			d.names = nil // list again next time: the disk may be gone
			errs = append(errs, fmt.Errorf("read disk %s: %w", name, err))
			continue
		}
		out = append(out, io)
	}
	return out, errors.Join(errs...)
}

// keepOpen closes the files of disks no longer listed.
func (d *Disk) keepOpen(names []string) {
	for name, f := range d.files {
		if !slices.Contains(names, name) {
			f.Close()
			delete(d.files, name)
		}
	}
}

// read is one disk's counters from its stat file ("reads merged sectors
// ticks writes … in_flight io_ticks …": fields 1, 5 and 10).
func (d *Disk) read(name string) (model.DiskIO, error) {
	f := d.files[name]
	if f == nil {
		f = kernelfs.NewOpenFile(filepath.Join(d.sysRoot, "block", name, "stat"), 256)
		d.files[name] = f
	}
	b, err := f.Read()
	if err != nil {
		return model.DiskIO{}, err
	}
	var v [10]uint64
	n := 0
	for field := range fields(b) {
		if n == len(v) {
			break
		}
		v[n] = parseDecimal(field)
		n++
	}
	if n < len(v) {
		return model.DiskIO{}, fmt.Errorf("%s: %d fields, want at least %d", f.Path(), n, len(v))
	}
	return model.DiskIO{Name: name, Reads: v[0], Writes: v[4], BusyMillis: v[9]}, nil
}

// Close releases the disks' files.
func (d *Disk) Close() {
	d.keepOpen(nil)
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
