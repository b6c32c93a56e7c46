package kernelfs

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	flag "github.com/spf13/pflag"
)

// Roots are the mount points the collectors read from.
type Roots struct {
	Proc string // default /proc
	Sys  string // default /sys
	Dev  string // default /dev
	Run  string // default /run (for ip netns names)
	Etc  string // default /etc (persisted tuning, read for drift)
}

// DefaultRoots are the real filesystems.
func DefaultRoots() Roots {
	return Roots{Proc: "/proc", Sys: "/sys", Dev: "/dev", Run: "/run", Etc: "/etc"}
}

// AddFlags registers the roots' flags on fs, each filling r, with the
// real filesystems as defaults (/run has none: it is always the host's).
func (r *Roots) AddFlags(fs *flag.FlagSet) {
	d := DefaultRoots()
	fs.StringVar(&r.Proc, "procfs", d.Proc, "procfs mount `path`")
	fs.StringVar(&r.Sys, "sysfs", d.Sys, "sysfs mount `path`")
	fs.StringVar(&r.Dev, "devfs", d.Dev, "devfs `path` (for kmsg)")
	fs.StringVar(&r.Etc, "etc", d.Etc, "configuration `path` tuning persists under and drift is read from")
	r.Run = d.Run
}

// classify maps a filesystem error onto the package's sentinels, keeping
// the original for the message.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %w", ErrPermission, err)
	}
	return err
}

// maxSysctl bounds the text of a sysctl or a sysfs value file.
const maxSysctl = 4096

// ReadSysctl reads a /proc/sys or /sys value file whole and bounded, its
// whitespace normalised ("32768 60999"): the one way tablefull reads a
// knob outside the sample path (which keeps its files open, openfile.go).
func ReadSysctl(path string) (string, error) {
	b, err := ReadBounded(path, maxSysctl)
	if err != nil {
		return "", classify(err)
	}
	return strings.Join(strings.Fields(string(b)), " "), nil
}

// ReadSysctlUint reads a value file holding one unsigned number.
func ReadSysctlUint(path string) (uint64, error) {
	v, err := ReadSysctl(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	return n, nil
}

// ParseFields parses whitespace-separated unsigned numbers.
func ParseFields(b []byte) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Fields(string(b)) {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// SysctlPath turns "net.netfilter.nf_conntrack_max" into its /proc/sys file.
func SysctlPath(procRoot, key string) string {
	return filepath.Join(procRoot, "sys", strings.ReplaceAll(key, ".", "/"))
}
