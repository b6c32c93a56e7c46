package exporter

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sys/unix"
)

// selfCollector serves the exporter's own process metrics under the names
// every Prometheus exporter uses (process_cpu_seconds_total and the
// rest), reading at a scrape only what changes between two: the
// process's stat line, its descriptor count and its limits. client_golang's
// process collector also re-reads the host's /proc/stat for the boot time
// at every scrape (a line per CPU, a large file on a big host) and the
// namespace's netstat for two network counters that are the namespace's,
// not the process's: together the largest part of what a scrape cost
// the exporter. The start time is read once, when the collector is made.
type selfCollector struct {
	dir                                           string  // the process's directory of /proc
	procFS                                        bool    // dir is on a real /proc (a fixture's size means nothing)
	startTime                                     float64 // seconds since the epoch; 0: not known
	cpu, rss, vsize, start, fds, maxFDs, maxVsize *prometheus.Desc
}

// userHZ is the unit of the stat line's times: the kernel exports them in
// USER_HZ, 100 on every Linux architecture Go builds for.
const userHZ = 100

// newSelfCollector reads the process pid of the proc file system at root
// (the exporter: "/proc" and its own pid).
func newSelfCollector(root string, pid int) *selfCollector {
	c := &selfCollector{
		dir:      filepath.Join(root, strconv.Itoa(pid)),
		cpu:      prometheus.NewDesc("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", nil, nil),
		rss:      prometheus.NewDesc("process_resident_memory_bytes", "Resident memory size in bytes.", nil, nil),
		vsize:    prometheus.NewDesc("process_virtual_memory_bytes", "Virtual memory size in bytes.", nil, nil),
		start:    prometheus.NewDesc("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", nil, nil),
		fds:      prometheus.NewDesc("process_open_fds", "Number of open file descriptors.", nil, nil),
		maxFDs:   prometheus.NewDesc("process_max_fds", "Maximum number of open file descriptors.", nil, nil),
		maxVsize: prometheus.NewDesc("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", nil, nil),
	}
	var fs unix.Statfs_t
	c.procFS = unix.Statfs(root, &fs) == nil && fs.Type == unix.PROC_SUPER_MAGIC
	if st, err := c.stat(); err == nil {
		if boot, err := bootTime(filepath.Join(root, "stat")); err == nil {
			c.startTime = float64(boot) + float64(st.startTicks)/userHZ
		}
	}
	return c
}

// Describe implements prometheus.Collector.
func (c *selfCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.cpu, c.rss, c.vsize, c.start, c.fds, c.maxFDs, c.maxVsize} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: a figure that cannot be read
// is left out, not served as zero.
func (c *selfCollector) Collect(ch chan<- prometheus.Metric) {
	if st, err := c.stat(); err == nil {
		ch <- prometheus.MustNewConstMetric(c.cpu, prometheus.CounterValue, float64(st.cpuTicks)/userHZ)
		ch <- prometheus.MustNewConstMetric(c.rss, prometheus.GaugeValue, float64(st.rssPages)*float64(os.Getpagesize()))
		ch <- prometheus.MustNewConstMetric(c.vsize, prometheus.GaugeValue, float64(st.vsize))
	}
	if c.startTime > 0 {
		ch <- prometheus.MustNewConstMetric(c.start, prometheus.GaugeValue, c.startTime)
	}
	if n, err := c.openFDs(); err == nil {
		ch <- prometheus.MustNewConstMetric(c.fds, prometheus.GaugeValue, float64(n))
	}
	// The limits may be changed from outside (prlimit): asked each
	// scrape, of the kernel, not read from /proc/self/limits.
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		ch <- prometheus.MustNewConstMetric(c.maxFDs, prometheus.GaugeValue, limitValue(lim.Cur))
	}
	if unix.Getrlimit(unix.RLIMIT_AS, &lim) == nil {
		ch <- prometheus.MustNewConstMetric(c.maxVsize, prometheus.GaugeValue, limitValue(lim.Cur))
	}
}

// limitValue is a soft limit as client_golang's collector serves it: no
// limit is the largest unsigned value.
func limitValue(v uint64) float64 {
	if v == unix.RLIM_INFINITY {
		return float64(^uint64(0))
	}
	return float64(v)
}

// procStat is what the collector reads of a /proc/PID/stat line.
type procStat struct {
	cpuTicks, startTicks, vsize, rssPages uint64
}

// errStatLine is a stat line that is not one.
var errStatLine = errors.New("not a /proc/PID/stat line")

// stat reads the process's stat line. Its fields are counted from after
// the command's closing parenthesis: the command is the process's own
// name, and may hold spaces and parentheses.
func (c *selfCollector) stat() (procStat, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "stat"))
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errStatLine
	}
	f := bytes.Fields(b[i+1:]) // f[0] is field 3, the state
	if len(f) < 22 {
		return procStat{}, errStatLine
	}
	var n [5]uint64
	for j, field := range []int{14, 15, 22, 23, 24} { // utime, stime, starttime, vsize, rss
		if n[j], err = strconv.ParseUint(string(f[field-3]), 10, 64); err != nil {
			return procStat{}, errStatLine
		}
	}
	return procStat{cpuTicks: n[0] + n[1], startTicks: n[2], vsize: n[3], rssPages: n[4]}, nil
}

// bootTime is the btime line of /proc/stat: the boot, in seconds since
// the epoch.
func bootTime(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("btime ")); ok {
			return strconv.ParseUint(string(bytes.TrimSpace(v)), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no btime line in " + path)
}

// openFDs counts the entries of a process's fd directory: its size on
// a real /proc (Linux 6.2 on gives the count so; an older kernel, 0), else
// a listing.
func (c *selfCollector) openFDs() (int, error) {
	dir := filepath.Join(c.dir, "fd")
	if c.procFS {
		if st, err := os.Stat(dir); err == nil && st.Size() > 0 {
			return int(st.Size()), nil
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	return len(names), err
}
