package sources

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

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

// sysctlFile is one /proc/sys file holding a number, kept open.
type sysctlFile struct{ *openFile }

func newSysctlFile(path string) sysctlFile { return sysctlFile{newOpenFile(path, 64)} }

func (s sysctlFile) read() (uint64, error) {
	b, err := s.openFile.read()
	if err != nil {
		return 0, err
	}
	v, err := parseNumber(b)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", s.path, err)
	}
	return v, nil
}

// parseNumber parses the text of a file holding one unsigned number.
func parseNumber(b []byte) (uint64, error) {
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

// NewTable reads under procRoot (normally /proc).
func NewTable(procRoot string) *Table {
	return &Table{
		count:    newSysctlFile(sysctlPath(procRoot, KeyCount)),
		max:      newSysctlFile(sysctlPath(procRoot, KeyMax)),
		buckets:  newSysctlFile(sysctlPath(procRoot, KeyBuckets)),
		timeWait: newSysctlFile(sysctlPath(procRoot, KeyTimeWait)),
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
		file sysctlFile
		dst  *uint64
	}{{t.max, &c.Max}, {t.buckets, &c.Buckets}, {t.timeWait, &c.TimeWaitHold}} {
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
	for _, f := range []sysctlFile{t.count, t.max, t.buckets, t.timeWait} {
		f.close()
	}
}
