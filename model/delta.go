package model

import (
	"time"

	"github.com/tablefull/tablefull/model/tally"
)

// Rates are what happened between two samples: counter deltas and the
// per-second rates derived from them.
type Rates struct {
	// Elapsed is the time between the two samples.
	Elapsed time.Duration
	// CT holds per-CPU deltas of each conntrack counter; CTTotal sums them.
	CT      []CPUCounters
	CTTotal CounterValues
	// CPU holds per-CPU utilisation in percent; CPUAll averages all CPUs.
	CPU    []CPUUse
	CPUAll CPUUse
	// Disks holds per-device rates.
	Disks []DiskRate
	// Per-second TCP rates.
	SynRetransPS      float64
	ListenOverflowsPS float64
	ListenDropsPS     float64
	ActiveOpensPS     float64
	PassiveOpensPS    float64
	ResetsPS          float64
	// Entries is the new entries per second, per class.
	Entries EntryRates
	// AllowanceExceeded is the packets cloud NICs refused for their own
	// connection tracking, AllowanceNIC the one that refused most.
	AllowanceExceeded uint64
	AllowanceNIC      Allowance
	// Absent are the parts missing at either end: their rates above are
	// zero and mean nothing (Known).
	Absent Parts
}

// NewEntriesPS is the rate of new conntrack entries (see Entries.Basis
// for what it counts).
func (r Rates) NewEntriesPS() float64 { return r.Entries.Total }

// DiskIOPS is the total of reads and writes per second over all disks.
func (r Rates) DiskIOPS() float64 {
	var t float64
	for _, d := range r.Disks {
		t += d.ReadsPS + d.WritesPS
	}
	return t
}

// MaxDiskUtil is the highest utilisation of any disk, in percent.
func (r Rates) MaxDiskUtil() float64 {
	var m float64
	for _, d := range r.Disks {
		m = max(m, d.Util)
	}
	return m
}

// CPUUse is CPU utilisation in percent of one CPU's time.
type CPUUse struct {
	CPU     int
	User    float64
	System  float64
	SoftIRQ float64
	IOWait  float64
	Idle    float64
}

// Busy is the share of time doing work: everything but idle and iowait.
func (u CPUUse) Busy() float64 { return clampPct(100 - u.Idle - u.IOWait) }

// DiskRate is one disk's activity between two samples.
type DiskRate struct {
	Name     string
	ReadsPS  float64
	WritesPS float64
	// Util is the percentage of time the device was busy.
	Util float64
}

// Delta computes the rates between prev and cur. A counter that went
// backwards (reset, module reload) counts as zero rather than wrapping.
func Delta(prev, cur Sample) Rates {
	el := cur.Time.Sub(prev.Time)
	r := Rates{Elapsed: el}
	secs := el.Seconds()
	if secs <= 0 {
		return r
	}
	r.CT, r.CTTotal = CTDelta(prev.CTStats, cur.CTStats)
	r.CPU, r.CPUAll = cpuDelta(prev.CPU, cur.CPU)
	r.Disks = diskDelta(prev.Disks, cur.Disks, secs)
	p, c := prev.TCP, cur.TCP
	r.SynRetransPS = perSec(p.SynRetrans, c.SynRetrans, secs)
	r.ListenOverflowsPS = perSec(p.ListenOverflows, c.ListenOverflows, secs)
	r.ListenDropsPS = perSec(p.ListenDrops, c.ListenDrops, secs)
	r.ActiveOpensPS = perSec(p.ActiveOpens, c.ActiveOpens, secs)
	r.PassiveOpensPS = perSec(p.PassiveOpens, c.PassiveOpens, secs)
	r.ResetsPS = perSec(p.OutRsts, c.OutRsts, secs)
	r.Entries = entryRates(prev, cur, secs)
	r.AllowanceExceeded, r.AllowanceNIC = allowanceDelta(prev.Allowance, cur.Allowance)
	r.Absent = prev.Absent | cur.Absent
	return r
}

// Increase is how much a counter rose from before to after: 0 when it fell
// (a reset, a namespace gone).
func Increase(before, after uint64) uint64 {
	if after < before {
		return 0
	}
	return after - before
}

func perSec(a, b uint64, secs float64) float64 { return float64(Increase(a, b)) / secs }

func CTDelta(prev, cur CTStats) ([]CPUCounters, CounterValues) {
	before := tally.EarlierRows[CPUCounters, int]{Rows: prev.PerCPU, Key: func(r CPUCounters) int { return r.CPU }}
	var total CounterValues
	rows := make([]CPUCounters, 0, len(cur.PerCPU))
	for at, row := range cur.PerCPU {
		d := CPUCounters{CPU: row.CPU}
		if old, ok := before.Find(at, row.CPU); ok {
			for _, c := range cur.Reported {
				if i := c.index(); i >= 0 {
					d.Values[i] = Increase(old.Values[i], row.Values[i])
					total[i] += d.Values[i]
				}
			}
		}
		rows = append(rows, d)
	}
	return rows, total
}

func cpuDelta(prev, cur []CPUTimes) ([]CPUUse, CPUUse) {
	before := tally.EarlierRows[CPUTimes, int]{Rows: prev, Key: func(c CPUTimes) int { return c.CPU }}
	var all CPUTimes
	var allPrev CPUTimes
	out := make([]CPUUse, 0, len(cur))
	for at, c := range cur {
		p, ok := before.Find(at, c.CPU)
		if !ok {
			continue
		}
		out = append(out, cpuUse(c.CPU, p, c))
		all = addTimes(all, c)
		allPrev = addTimes(allPrev, p)
	}
	return out, cpuUse(-1, allPrev, all)
}

func addTimes(a, b CPUTimes) CPUTimes {
	return CPUTimes{User: a.User + b.User, Nice: a.Nice + b.Nice, System: a.System + b.System,
		Idle: a.Idle + b.Idle, IOWait: a.IOWait + b.IOWait, IRQ: a.IRQ + b.IRQ,
		SoftIRQ: a.SoftIRQ + b.SoftIRQ, Steal: a.Steal + b.Steal}
}

func cpuUse(id int, p, c CPUTimes) CPUUse {
	total := c.Total() - p.Total()
	if total <= 0 {
		return CPUUse{CPU: id, Idle: 100}
	}
	pct := func(a, b float64) float64 { return clampPct(100 * (b - a) / total) }
	return CPUUse{
		CPU:     id,
		User:    pct(p.User+p.Nice, c.User+c.Nice),
		System:  pct(p.System+p.IRQ, c.System+c.IRQ),
		SoftIRQ: pct(p.SoftIRQ, c.SoftIRQ),
		IOWait:  pct(p.IOWait, c.IOWait),
		Idle:    pct(p.Idle, c.Idle),
	}
}

func diskDelta(prev, cur []DiskIO, secs float64) []DiskRate {
	before := tally.EarlierRows[DiskIO, string]{Rows: prev, Key: func(d DiskIO) string { return d.Name }}
	out := make([]DiskRate, 0, len(cur))
	for at, d := range cur {
		p, ok := before.Find(at, d.Name)
		if !ok {
			continue
		}
		out = append(out, DiskRate{
			Name:     d.Name,
			ReadsPS:  perSec(p.Reads, d.Reads, secs),
			WritesPS: perSec(p.Writes, d.Writes, secs),
			Util:     clampPct(float64(Increase(p.BusyMillis, d.BusyMillis)) / (secs * 10)),
		})
	}
	return out
}

func clampPct(v float64) float64 { return min(100, max(0, v)) }

// Drops is the packets the table lost in the interval (conntrack -S's
// drop). An early drop is not one: it evicts an unassured entry to make
// room and the new packet goes through (__nf_conntrack_alloc tries
// early_drop first and drops only when that fails), so early_drop counts
// evictions, said apart (EarlyDrops).
func (r Rates) Drops() uint64 { return r.CTTotal.Get(Drop) }

// EarlyDrops is the entries evicted in the interval to let a new one in.
func (r Rates) EarlyDrops() uint64 { return r.CTTotal.Get(EarlyDrop) }

// Activity ranks a CPU's row: counters that lose connections (drop,
// early_drop, insert_failed, chaintoolong) weigh a thousand times more.
func (r CPUCounters) Activity() uint64 {
	return r.Values.Sum(func(c Counter) uint64 {
		if c.Loses() {
			return 1001
		}
		return 1
	})
}

// Loses reports whether a rise of c means connections are lost.
func (c Counter) Loses() bool {
	return c == Drop || c == EarlyDrop || c == InsertFailed || c == ChainTooLong
}
