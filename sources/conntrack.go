package sources

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tablefull/tablefull/model"
)

// Sysctl keys of the conntrack table.
const (
	KeyCount    = "net.netfilter.nf_conntrack_count"
	KeyMax      = "net.netfilter.nf_conntrack_max"
	KeyBuckets  = "net.netfilter.nf_conntrack_buckets"
	KeyTimeWait = "net.netfilter.nf_conntrack_tcp_timeout_time_wait"
)

// Table reads the conntrack table's size and limits from /proc/sys. They
// are readable unprivileged and per network namespace (max and buckets are
// global but visible everywhere). The files stay open between samples and
// are re-read from offset 0, as sysctl files allow.
type Table struct {
	count, max, buckets, timeWait sysctlFile
}

// sysctlFile is one /proc/sys file, opened on first use.
type sysctlFile struct {
	path string
	f    *os.File
	buf  [64]byte
}

func (s *sysctlFile) read() (uint64, error) {
	if s.f == nil {
		f, err := os.Open(s.path)
		if err != nil {
			return 0, classify(fmt.Errorf("open %s: %w", s.path, err))
		}
		s.f = f
	}
	n, err := s.f.ReadAt(s.buf[:], 0)
	if n == 0 && err != nil {
		s.close() // the module may have been unloaded: reopen next time
		return 0, classify(fmt.Errorf("read %s: %w", s.path, err))
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(s.buf[:n])), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", s.path, err)
	}
	return v, nil
}

func (s *sysctlFile) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// NewTable reads under procRoot (normally /proc).
func NewTable(procRoot string) *Table {
	return &Table{
		count:    sysctlFile{path: sysctlPath(procRoot, KeyCount)},
		max:      sysctlFile{path: sysctlPath(procRoot, KeyMax)},
		buckets:  sysctlFile{path: sysctlPath(procRoot, KeyBuckets)},
		timeWait: sysctlFile{path: sysctlPath(procRoot, KeyTimeWait)},
	}
}

// CountPath is the file the fast peak sampler polls.
func (t *Table) CountPath() string { return t.count.path }

// Read returns the table's state. A missing nf_conntrack_count means the
// module is not loaded: the status says so and no error is returned. Peak
// is set to Count; the peak sampler raises it.
func (t *Table) Read() (model.Conntrack, error) {
	count, err := t.count.read()
	if errors.Is(err, ErrUnavailable) {
		return model.Conntrack{Status: model.TableNoModule}, nil
	}
	if err != nil {
		return model.Conntrack{Status: model.TableUnreadable}, err
	}
	c := model.Conntrack{Status: model.TableTracked, Count: count, Peak: count}
	var errs []error
	for _, f := range []struct {
		file *sysctlFile
		dst  *uint64
	}{{&t.max, &c.Max}, {&t.buckets, &c.Buckets}, {&t.timeWait, &c.TimeWaitHold}} {
		v, err := f.file.read()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		*f.dst = v
	}
	return c, errors.Join(errs...)
}

// Close releases the open files.
func (t *Table) Close() {
	for _, f := range []*sysctlFile{&t.count, &t.max, &t.buckets, &t.timeWait} {
		f.close()
	}
}
