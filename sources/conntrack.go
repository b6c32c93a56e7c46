package sources

import (
	"errors"

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
// global but visible everywhere).
type Table struct {
	count, max, buckets, timeWait string
}

// NewTable reads under procRoot (normally /proc).
func NewTable(procRoot string) *Table {
	return &Table{
		count:    sysctlPath(procRoot, KeyCount),
		max:      sysctlPath(procRoot, KeyMax),
		buckets:  sysctlPath(procRoot, KeyBuckets),
		timeWait: sysctlPath(procRoot, KeyTimeWait),
	}
}

// CountPath is the file the fast peak sampler polls.
func (t *Table) CountPath() string { return t.count }

// Read returns the table's state. A missing nf_conntrack_count means the
// module is not loaded: the status says so and no error is returned. Peak
// is set to Count; the peak sampler raises it.
func (t *Table) Read() (model.Conntrack, error) {
	count, err := readUint(t.count)
	if errors.Is(err, ErrUnavailable) {
		return model.Conntrack{Status: model.TableNoModule}, nil
	}
	if err != nil {
		return model.Conntrack{Status: model.TableUnreadable}, err
	}
	c := model.Conntrack{Status: model.TableTracked, Count: count, Peak: count}
	var errs []error
	for _, f := range []struct {
		path string
		dst  *uint64
	}{{t.max, &c.Max}, {t.buckets, &c.Buckets}, {t.timeWait, &c.TimeWaitHold}} {
		v, err := readUint(f.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		*f.dst = v
	}
	return c, errors.Join(errs...)
}
