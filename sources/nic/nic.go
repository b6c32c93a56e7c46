// Package nic reads the cloud NICs that keep their own connection
// tracking beside the kernel's — ENA's conntrack_allowance_exceeded and
// conntrack_allowance_available, in the driver's ethtool statistics — so
// that drops the instance makes while nf_conntrack is healthy are named.
// It finds them by their driver in sysfs, rescans rarely, and never
// changes a NIC.
package nic

import (
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/tablefull/tablefull/model"
)

// RescanEvery is how often the interfaces are listed again.
const RescanEvery = time.Minute

// The statistics read, as the ENA driver names them.
const (
	statExceeded  = "conntrack_allowance_exceeded"
	statAvailable = "conntrack_allowance_available"
)

// Drivers are the drivers whose NICs keep the allowance counters.
var Drivers = map[string]bool{"ena": true}

// Reader reads the allowances of this network namespace's NICs.
type Reader struct {
	sys string
	// Stats reads an interface's driver and ethtool statistics; tests
	// replace it.
	Stats   func(iface string) (driver string, stats map[string]uint64, err error)
	ifaces  []string
	scanned time.Time
}

// NewReader reads through the ethtool ioctl, finding the NICs under the
// sysfs root sys.
func NewReader(sys string) *Reader { return &Reader{sys: sys, Stats: new(ethtoolBuffers).stats} }

// Read is the allowance of each NIC that keeps one, nil when none does.
func (r *Reader) Read(now time.Time) []model.Allowance {
	if r.scanned.IsZero() || now.Sub(r.scanned) >= RescanEvery || now.Before(r.scanned) {
		r.ifaces, r.scanned = r.scan(), now
	}
	var out []model.Allowance
	for _, iface := range r.ifaces {
		driver, st, err := r.Stats(iface)
		exceeded, ok := st[statExceeded]
		if err != nil || !ok {
			continue
		}
		available, read := st[statAvailable]
		out = append(out, model.Allowance{Iface: iface, Driver: driver, Exceeded: exceeded, Available: available, AvailableRead: read})
		if len(out) == model.MaxAllowances {
			break
		}
	}
	return out
}

// scan lists the interfaces whose driver (class/net/IF/device/driver)
// is one of Drivers, in name order.
func (r *Reader) scan() []string {
	dir := filepath.Join(r.sys, "class", "net")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name(), "device", "driver"))
		if err == nil && Drivers[filepath.Base(link)] {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
