package model

import (
	"encoding/json"
	"time"

	"github.com/tablefull/tablefull/model/knob"
)

// Host describes the machine a stream of samples comes from.
type Host struct {
	Name     string `json:"name"`
	Kernel   string `json:"kernel"`
	CPUs     int    `json:"cpus"`
	MemTotal uint64 `json:"mem_total_bytes"`
	// Source says where the data comes from: "local", "ssh host", "file", "demo".
	Source string `json:"source"`
}

// Sample is one observation of the host. Counters are cumulative, exactly
// as the kernel reports them; Delta turns two samples into rates.
type Sample struct {
	Time      time.Time     `json:"time"`
	Interval  time.Duration `json:"interval_ns"`
	Conntrack Conntrack     `json:"conntrack"`
	CTStats   CTStats       `json:"ct_stats"`
	CPU       []CPUTimes    `json:"cpu"`
	Disks     []DiskIO      `json:"disks"`
	TCP       TCP           `json:"tcp"`
	Kernel    KernelLog     `json:"kernel_log"`
	// KernelRelease is the running kernel's release ("" unknown): the
	// kernel's rules changed between versions. A stream says it once, in
	// its header, so it is never on a sample's line.
	KernelRelease string `json:"-"`
	// Entries counts new entries where the kernel makes them.
	Entries Entries `json:"entries"`
	// Census is the latest table census, when one was asked for and has
	// finished since the previous sample.
	Census *Census `json:"census,omitempty"`
	// Who is what the kernel probes counted in the interval: new
	// connections and the table's drops by owner (nil: not asked for).
	Who *Who `json:"who,omitempty"`
	// Listeners are the listeners whose accept queue is at or near its
	// backlog, read when the listen queues overflowed since the previous
	// sample (nil: not read).
	Listeners *Listeners `json:"listeners,omitempty"`
	// Allowance are the cloud NICs that keep their own connection
	// tracking (ENA), when any does (nil: none, or not read).
	Allowance []Allowance `json:"allowance,omitempty"`
	// Cilium is Cilium's conntrack maps, where Cilium runs (nil: none
	// pinned here).
	Cilium *CiliumMaps `json:"cilium,omitempty"`
	// IPVS is the kernel's IP Virtual Server: its services and
	// connection table where ip_vs is loaded, Present false where it is
	// not (nil: not read).
	IPVS *IPVS `json:"ipvs,omitempty"`
	// Flushes are the bursts of entries user space deleted, where they
	// are watched (nil: not read).
	Flushes *Flushes `json:"flushes,omitempty"`
	// Ports are the local ports connect() took, by destination, read
	// when the host's TCP sockets come near the port range (nil: not
	// read).
	Ports *PortUse `json:"ports,omitempty"`
	// NAT is the source NAT of the ruleset, read when entries failed to
	// insert since the previous sample (nil: not read).
	NAT *NAT `json:"nat,omitempty"`
	// Namespaces are the host's other network namespaces, when this
	// sample is the host's and they were read.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// Drift compares the values tablefull persisted with the live ones
	// (nil: not checked, as in a child namespace or with /etc unreadable).
	Drift *knob.Drifts `json:"drift,omitempty"`
	// Notes are read errors of parts of the sample; the rest is valid.
	Notes []string `json:"notes,omitempty"`
	// Absent are the parts not read at all (not scraped, unreadable): not
	// zero, unknown. Notes say why.
	Absent Parts `json:"absent,omitempty"`
}

// Conntrack is the table's size and limits at the moment of the sample.
type Conntrack struct {
	// Status says whether the numbers mean anything; see TableStatus.
	Status TableStatus `json:"status"`
	Count  uint64      `json:"count"`
	// Peak is the highest count seen by the fast sampler during the
	// interval that ends at this sample; never below Count.
	Peak    uint64 `json:"peak"`
	Max     uint64 `json:"max"`
	Buckets uint64 `json:"buckets"`
	// TimeWaitHold is nf_conntrack_tcp_timeout_time_wait, in seconds.
	TimeWaitHold uint64 `json:"time_wait_hold_s"`
	// Holds are the timeouts the kernel holds each class's entries for
	// now, in seconds (0: not read).
	Holds ClassCounts `json:"holds_s"`
}

// CutToCap is c with its count and peak no higher than its cap when
// they read over it by at most inFlight. The kernel counts an entry
// before it checks the cap (__nf_conntrack_alloc: atomic_inc_return, then
// a count over nf_conntrack_max drops the packet and decrements), so a
// read while packets are refused can see the cap plus the allocations
// being refused, at most one a CPU: those never were entries. A count
// further over is a cap lowered below the live table (the entries stay
// until they expire) and is kept as read.
func (c Conntrack) CutToCap(inFlight uint64) Conntrack {
	if c.Max == 0 {
		return c
	}
	if c.Count > c.Max && c.Count-c.Max <= inFlight {
		c.Count = c.Max
	}
	if c.Peak > c.Max && c.Peak-c.Max <= inFlight {
		c.Peak = c.Max
	}
	return c
}

// TableStatus says whether the conntrack numbers of a sample can be used.
type TableStatus string

// Table states.
const (
	TableTracked    TableStatus = "tracked"    // the module is loaded and the namespace is tracked
	TableUntracked  TableStatus = "untracked"  // module loaded, but nothing tracks this namespace (count 0)
	TableNoModule   TableStatus = "no-module"  // nf_conntrack is not loaded
	TableUnreadable TableStatus = "unreadable" // the files exist but could not be read
)

// CTStats are the per-CPU conntrack counters (conntrack -S), cumulative.
type CTStats struct {
	// Source is where they came from: "procfs", "ctnetlink", or "" when
	// unavailable.
	Source string `json:"source,omitempty"`
	// Note explains why they are unavailable (for example "needs root").
	Note string `json:"note,omitempty"`
	// Reported lists the counters the running kernel actually maintains;
	// others are hidden rather than shown as zeros.
	Reported []Counter     `json:"reported,omitempty"`
	PerCPU   []CPUCounters `json:"per_cpu,omitempty"`
}

// Counter names one per-CPU conntrack counter.
type Counter string

// The counters that matter in an incident, named as conntrack -S names them.
const (
	Drop          Counter = "drop"
	EarlyDrop     Counter = "early_drop"
	InsertFailed  Counter = "insert_failed"
	Invalid       Counter = "invalid"
	Error         Counter = "error"
	SearchRestart Counter = "search_restart"
	ClashResolve  Counter = "clash_resolve"
	ChainTooLong  Counter = "chaintoolong"
)

// AllCounters is the display order of the per-CPU counters.
var AllCounters = []Counter{Drop, EarlyDrop, InsertFailed, Invalid, Error, SearchRestart, ClashResolve, ChainTooLong}

// CPUCounters is one CPU's row of conntrack counters.
type CPUCounters struct {
	CPU    int           `json:"cpu"`
	Values CounterValues `json:"values"`
}

// NumCounters is the number of counters in AllCounters.
const NumCounters = 8

// CounterValues holds one value per counter, in AllCounters' order: a
// fixed array, so a row of a 384-CPU host costs 64 bytes, not a map.
type CounterValues [NumCounters]uint64

// index is c's place in AllCounters, -1 for a counter we do not know.
func (c Counter) index() int {
	switch c {
	case Drop:
		return 0
	case EarlyDrop:
		return 1
	case InsertFailed:
		return 2
	case Invalid:
		return 3
	case Error:
		return 4
	case SearchRestart:
		return 5
	case ClashResolve:
		return 6
	case ChainTooLong:
		return 7
	}
	return -1
}

// Get returns counter c's value (0 for an unknown counter).
func (v CounterValues) Get(c Counter) uint64 {
	if i := c.index(); i >= 0 {
		return v[i]
	}
	return 0
}

// Set sets counter c; an unknown counter is ignored.
func (v *CounterValues) Set(c Counter, x uint64) {
	if i := c.index(); i >= 0 {
		v[i] = x
	}
}

// Sum is the total of all counters weighted by w(c).
func (v CounterValues) Sum(w func(Counter) uint64) uint64 {
	var t uint64
	for i, c := range AllCounters {
		t += v[i] * w(c)
	}
	return t
}

// CountersOf builds CounterValues from a map (tests, literals).
func CountersOf(m map[Counter]uint64) CounterValues {
	var v CounterValues
	for c, x := range m {
		v.Set(c, x)
	}
	return v
}

// MarshalJSON writes the counters as an object by name, as `tablefull
// snapshot --json` always has.
func (v CounterValues) MarshalJSON() ([]byte, error) {
	m := make(map[Counter]uint64, NumCounters)
	for i, c := range AllCounters {
		m[c] = v[i]
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the object MarshalJSON writes.
func (v *CounterValues) UnmarshalJSON(b []byte) error {
	var m map[Counter]uint64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*v = CountersOf(m)
	return nil
}

// MarshalJSON writes each CPU's counters by name, only those the kernel
// reports (`tablefull snapshot --json`).
func (s CTStats) MarshalJSON() ([]byte, error) {
	type row struct {
		CPU    int                `json:"cpu"`
		Values map[Counter]uint64 `json:"values"`
	}
	type plain CTStats
	out := struct {
		plain
		PerCPU []row `json:"per_cpu,omitempty"`
	}{plain: plain(s)}
	for _, r := range s.PerCPU {
		vals := make(map[Counter]uint64, len(s.Reported))
		for _, c := range s.Reported {
			vals[c] = r.Values.Get(c)
		}
		out.PerCPU = append(out.PerCPU, row{CPU: r.CPU, Values: vals})
	}
	return json.Marshal(out)
}

// Reports reports whether the kernel maintains counter c.
func (s CTStats) Reports(c Counter) bool {
	for _, r := range s.Reported {
		if r == c {
			return true
		}
	}
	return false
}

// Total sums counter c over all CPUs.
func (s CTStats) Total(c Counter) uint64 {
	var t uint64
	for _, row := range s.PerCPU {
		t += row.Values.Get(c)
	}
	return t
}

// DiskIO are one block device's cumulative counters (from /proc/diskstats).
type DiskIO struct {
	Name   string `json:"name"`
	Reads  uint64 `json:"reads"`
	Writes uint64 `json:"writes"`
	// BusyMillis is the time the device had I/O in flight (io_ticks).
	BusyMillis uint64 `json:"busy_ms"`
}

// TCP holds the TCP counters that show connections stalling.
type TCP struct {
	// Cumulative counters (netstat TcpExt and snmp Tcp).
	SynRetrans      uint64 `json:"syn_retrans"`
	ListenOverflows uint64 `json:"listen_overflows"`
	ListenDrops     uint64 `json:"listen_drops"`
	ActiveOpens     uint64 `json:"active_opens"`
	PassiveOpens    uint64 `json:"passive_opens"`
	OutRsts         uint64 `json:"out_rsts"`
	// Gauges.
	TimeWait    uint64 `json:"time_wait"`
	Established uint64 `json:"established"`
	// PortRange is ip_local_port_range, [low, high]; zero when unknown.
	PortRange [2]uint64 `json:"port_range"`
}

// KernelLog is what the kernel log said about the table since the previous
// sample.
type KernelLog struct {
	// Readable is false when /dev/kmsg cannot be read (not root).
	Readable bool `json:"readable"`
	// Note explains why it is not readable.
	Note string `json:"note,omitempty"`
	// Lines are the new "table full" lines.
	Lines []KernelLine `json:"lines,omitempty"`
	// Suppressed is the sum of "N callbacks suppressed" seen since the
	// previous sample.
	Suppressed uint64 `json:"suppressed"`
}

// KernelLine is one kernel log record about the conntrack table.
type KernelLine struct {
	Time time.Time `json:"time"`
	Text string    `json:"text"`
	// NetNS is the namespace inode the line names, 0 for the init namespace.
	NetNS uint64 `json:"netns,omitempty"`
	// NetNSName is its `ip netns` name, when it has one, or NetNSGone
	// when the name now on that inode belongs to a namespace made after
	// the line (inode numbers are reused).
	NetNSName string `json:"netns_name,omitempty"`
}

// NetNSGone marks a line whose namespace is gone: the name now on its
// inode is a newer namespace's.
const NetNSGone = "(gone)"
