package counters

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Sysctl keys of the conntrack table that are read, never tuned (the
// tunable ones are tuning.Knobs).
const (
	KeyCount   = "net.netfilter.nf_conntrack_count"
	KeyBuckets = "net.netfilter.nf_conntrack_buckets"
)

// holdKeys are the timeouts that hold each class's entries (model.Class
// order); ClassTCPDone's is TIME_WAIT's.
var holdKeys = [model.NumClasses]string{
	knob.TimeWait,
	knob.SynSent,
	"net.netfilter.nf_conntrack_tcp_timeout_established",
	knob.UDPTimeout,
	knob.UDPStream,
	"net.netfilter.nf_conntrack_icmp_timeout",
	"net.netfilter.nf_conntrack_generic_timeout",
	"net.netfilter.nf_conntrack_tcp_timeout_close",
	knob.SynRecv,
	knob.LastAck,
}

// HoldsEvery is how often the holds are read again: they change only when
// someone tunes them, and each is a file read a sample would pay for.
const HoldsEvery = 10 * time.Second

// Table reads the conntrack table's size and limits from /proc/sys. They
// are readable unprivileged and per network namespace (max and buckets are
// global but visible everywhere). The files stay open between samples and
// are re-read from offset 0, as sysctl files allow.
type Table struct {
	count, max, buckets, timeWait sysctlFile
	// holds are the other classes' timeouts, read every HoldsEvery.
	holds     [model.NumClasses]sysctlFile
	lastHolds model.ClassCounts
	holdsAt   time.Time
	now       func() time.Time
}

// sysctlFile is one /proc/sys file holding a number, kept open.
type sysctlFile struct{ *kernelfs.OpenFile }

func newSysctlFile(path string) sysctlFile { return sysctlFile{kernelfs.NewOpenFile(path, 64)} }

func (s sysctlFile) read() (uint64, error) {
	b, err := s.OpenFile.Read()
	if err != nil {
		return 0, err
	}
	v, err := parseNumber(b)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", s.Path(), err)
	}
	return v, nil
}

// parseNumber parses the text of a file holding one unsigned number.
func parseNumber(b []byte) (uint64, error) {
	return strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
}

// NewTable reads under procRoot (normally /proc).
func NewTable(procRoot string) *Table {
	t := &Table{
		count:    newSysctlFile(kernelfs.SysctlPath(procRoot, KeyCount)),
		max:      newSysctlFile(kernelfs.SysctlPath(procRoot, knob.Max)),
		buckets:  newSysctlFile(kernelfs.SysctlPath(procRoot, KeyBuckets)),
		timeWait: newSysctlFile(kernelfs.SysctlPath(procRoot, knob.TimeWait)),
		now:      time.Now,
	}
	for i, k := range holdKeys[1:] {
		t.holds[i+1] = newSysctlFile(kernelfs.SysctlPath(procRoot, k))
	}
	return t
}

// readHolds returns the classes' timeouts, reading them again when
// HoldsEvery has passed. A timeout the kernel lacks stays 0: not read.
func (t *Table) readHolds(timeWait uint64) model.ClassCounts {
	if now := t.now(); t.holdsAt.IsZero() || now.Sub(t.holdsAt) >= HoldsEvery {
		t.holdsAt = now
		for i := 1; i < model.NumClasses; i++ {
			v, err := t.holds[i].read()
			if err != nil {
				v = 0
			}
			t.lastHolds[i] = v
		}
	}
	h := t.lastHolds
	h[model.ClassTCPDone] = timeWait
	return h
}

// CountPath is the file the fast peak sampler polls.
func (t *Table) CountPath() string { return t.count.Path() }

// Read returns the table's state. A missing nf_conntrack_count means the
// module is not loaded: the status says so and no error is returned. Peak
// is set to Count; the peak sampler raises it.
func (t *Table) Read() (model.Conntrack, error) {
	count, err := t.count.read()
	if errors.Is(err, kernelfs.ErrUnavailable) {
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
	c.Holds = t.readHolds(c.TimeWaitHold)
	return c, errors.Join(errs...)
}

// Close releases the open files.
func (t *Table) Close() {
	for _, f := range []sysctlFile{t.count, t.max, t.buckets, t.timeWait} {
		f.Close()
	}
	for _, f := range t.holds[1:] {
		f.Close()
	}
}

// SampleCounts reads the count and the cap, two reads of open files.
func (t *Table) SampleCounts() model.Conntrack {
	count, err := t.count.read()
	if err != nil {
		return model.Conntrack{Status: model.TableUnreadable}
	}
	limit, err := t.max.read()
	if err != nil {
		return model.Conntrack{Status: model.TableUnreadable}
	}
	return model.Conntrack{Status: model.TableTracked, Count: count, Max: limit}
}
