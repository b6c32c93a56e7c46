package incident

import (
	"math"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// TimelineBuckets bounds a Timeline: however long the recording, its
// charts have at most this many points a series (a printed page is about
// 700 points wide).
const TimelineBuckets = 720

// maxWidth stops the doubling before a bucket's width overflows (about
// 73 years): a clock that jumps further is not a recording to chart.
const maxWidth = time.Duration(1 << 61)

// Bucket is a stretch of a timeline: what the frames in it add up to.
type Bucket struct {
	// From is the start of the bucket's first interval, To its last
	// sample's time.
	From, To time.Time
	// Samples counts the frames in it.
	Samples int
	// Peak is the highest count; Cap the highest nf_conntrack_max and
	// CapLow the lowest (they differ when the cap was changed in it).
	Peak, Cap, CapLow uint64
	// Pinned is how long the table was at its cap; Elapsed the time the
	// rates cover.
	Pinned, Elapsed time.Duration
	// Drops sums drop and early_drop; CPUDrops the same per CPU, for the
	// BucketCPUs CPUs that dropped most in it.
	Drops    uint64
	CPUDrops []CPUDrops
	// Time-weighted sums (rate × seconds) of CPU busy %, the busiest
	// disk's utilisation %, SYN retransmits, listen overflows and new
	// connections; divide by Elapsed for the bucket's average.
	busy, diskUtil, synRetrans, listenOverflows, newConns float64
	// cpuSecs, diskSecs and tcpSecs are the seconds those parts were read
	// in: the averages are over them, NaN when none (not read is not 0).
	cpuSecs, diskSecs, tcpSecs float64
	// Ceiling is the lowest ceiling of its frames in the bucket — max ÷ the
	// hold of the class that fills the table (0: none, where standing
	// connections fill it, or no hold known).
	Ceiling float64
	// Gap reports that the stream was down just before or inside it.
	Gap bool
	// kinds has a bit for each verdict that held in it (its rank, see
	// KindSeverity).
	kinds uint32
}

// Held reports whether verdict k held at some time in the bucket.
func (b Bucket) Held(k verdict.Kind) bool {
	_, r := diagnose.KindSeverity(k)
	return b.kinds&(1<<r) != 0
}

// CPUDrops is one CPU's drops in a bucket.
type CPUDrops struct {
	CPU   int
	Drops uint64
}

func (b Bucket) per(sum float64) float64 {
	if s := b.Elapsed.Seconds(); s > 0 {
		return sum / s
	}
	return 0
}

// DropsPS is the bucket's drops per second.
func (b Bucket) DropsPS() float64 { return b.per(float64(b.Drops)) }

// CPUDropsPS is cpu's drops per second in the bucket.
func (b Bucket) CPUDropsPS(cpu int) float64 {
	for _, d := range b.CPUDrops {
		if d.CPU == cpu {
			return b.per(float64(d.Drops))
		}
	}
	return 0
}

// over is sum's average over the secs a part was read, NaN when never.
func over(sum, secs float64) float64 {
	if secs <= 0 {
		return math.NaN()
	}
	return sum / secs
}

// BusyPct is the average CPU busy percentage (NaN: CPU not read).
func (b Bucket) BusyPct() float64 { return over(b.busy, b.cpuSecs) }

// DiskUtilPct is the busiest disk's average utilisation (NaN: not read).
func (b Bucket) DiskUtilPct() float64 { return over(b.diskUtil, b.diskSecs) }

// SynRetransPS is SYN retransmits per second (NaN: TCP not read).
func (b Bucket) SynRetransPS() float64 { return over(b.synRetrans, b.tcpSecs) }

// ListenOverflowsPS is listen queue overflows per second (NaN: TCP not
// read).
func (b Bucket) ListenOverflowsPS() float64 { return over(b.listenOverflows, b.tcpSecs) }

// NewConnsPS is new TCP connections per second.
func (b Bucket) NewConnsPS() float64 { return b.per(b.newConns) }

// Timeline folds frames into at most TimelineBuckets buckets of equal
// width, in one pass: when the frames outgrow the buckets, neighbours are
// merged in pairs and the width doubles. Its memory does not grow with
// the recording.
type Timeline struct {
	start   time.Time
	width   time.Duration
	buckets []Bucket
	// index of each bucket (from start in widths); a missing index is a
	// stretch with no samples.
	index []int
	// CPUTotals sums each CPU's drops over the whole timeline.
	cpuTotals map[int]uint64
}

// Add folds f into the timeline.
func (t *Timeline) Add(f diagnose.Frame) {
	s := f.Sample
	if t.width == 0 {
		t.start = s.Time.Add(-s.Interval)
		t.width = max(s.Interval, time.Second)
		t.cpuTotals = map[int]uint64{}
	}
	i := int(s.Time.Sub(t.start) / t.width)
	for i >= TimelineBuckets && t.width < maxWidth {
		t.halve()
		i = int(s.Time.Sub(t.start) / t.width)
	}
	n := len(t.index)
	if n == 0 || t.index[n-1] < i {
		t.buckets = append(t.buckets, Bucket{From: s.Time.Add(-s.Interval), CapLow: s.Conntrack.Max,
			Gap: n > 0 && t.index[n-1] < i-1})
		t.index = append(t.index, i)
		n++
	}
	b := &t.buckets[n-1]
	b.To = s.Time
	b.Samples++
	b.Peak = max(b.Peak, s.Conntrack.Peak, s.Conntrack.Count)
	b.Cap, b.CapLow = max(b.Cap, s.Conntrack.Max), min(b.CapLow, s.Conntrack.Max)
	b.Gap = b.Gap || f.Gap
	r := f.Rates
	secs := r.Elapsed.Seconds()
	b.Elapsed += r.Elapsed
	if f.Pinned {
		b.Pinned += r.Elapsed
	}
	b.Drops += r.Drops()
	for _, row := range r.CT {
		if d := row.Values.Get(model.Drop) + row.Values.Get(model.EarlyDrop); d > 0 {
			b.CPUDrops = addCPUDrops(b.CPUDrops, CPUDrops{CPU: row.CPU, Drops: d})
			t.cpuTotals[row.CPU] += d
		}
	}
	if r.Known(model.PartCPU) {
		b.busy += r.CPUAll.Busy() * secs
		b.cpuSecs += secs
	}
	if r.Known(model.PartDisks) {
		b.diskUtil += r.MaxDiskUtil() * secs
		b.diskSecs += secs
	}
	if r.Known(model.PartTCP) {
		b.synRetrans += r.SynRetransPS * secs
		b.listenOverflows += r.ListenOverflowsPS * secs
		b.tcpSecs += secs
	}
	b.newConns += r.NewEntriesPS() * secs
	// The frame's own ceiling, by the hold of the class that fills it: none
	// where standing connections fill it, as the report's words say.
	if c, _ := diagnose.CeilingOf(s.Conntrack, f.Fill); c > 0 && (b.Ceiling == 0 || c < b.Ceiling) {
		b.Ceiling = c
	}
	for _, v := range f.Verdicts {
		_, r := diagnose.KindSeverity(v.Kind)
		b.kinds |= 1 << r
	}
}

func worse(a, b verdict.Kind) bool {
	sa, ra := diagnose.KindSeverity(a)
	sb, rb := diagnose.KindSeverity(b)
	return sa > sb || (sa == sb && ra < rb)
}

// BucketCPUs bounds the CPUs a bucket keeps drops of: the charts draw
// the few that dropped most, and a host of 8,192 CPUs must not cost
// 8,192 rows a bucket.
const BucketCPUs = 32

// addCPUDrops adds d to its CPU's row; when the bucket already keeps
// BucketCPUs rows, the row that dropped least gives way to a CPU that
// dropped more.
func addCPUDrops(rows []CPUDrops, d CPUDrops) []CPUDrops {
	least := -1
	for i := range rows {
		if rows[i].CPU == d.CPU {
			rows[i].Drops += d.Drops
			return rows
		}
		if least < 0 || rows[i].Drops < rows[least].Drops {
			least = i
		}
	}
	switch {
	case len(rows) < BucketCPUs:
		return append(rows, d)
	case d.Drops > rows[least].Drops:
		rows[least] = d
	}
	return rows
}

// halve merges the buckets in pairs: the width doubles.
func (t *Timeline) halve() {
	t.width *= 2
	var out []Bucket
	var idx []int
	for k, b := range t.buckets {
		i := t.index[k] / 2
		if n := len(idx); n > 0 && idx[n-1] == i {
			out[n-1] = merge(out[n-1], b)
			continue
		}
		if n := len(idx); n > 0 && idx[n-1] < i-1 {
			b.Gap = true
		}
		out = append(out, b)
		idx = append(idx, i)
	}
	t.buckets, t.index = out, idx
}

func merge(a, b Bucket) Bucket {
	a.To = b.To
	a.Samples += b.Samples
	a.Peak, a.Cap, a.CapLow = max(a.Peak, b.Peak), max(a.Cap, b.Cap), min(a.CapLow, b.CapLow)
	a.Pinned += b.Pinned
	a.Elapsed += b.Elapsed
	a.Drops += b.Drops
	for _, d := range b.CPUDrops {
		a.CPUDrops = addCPUDrops(a.CPUDrops, d)
	}
	a.busy += b.busy
	a.diskUtil += b.diskUtil
	a.cpuSecs, a.diskSecs, a.tcpSecs = a.cpuSecs+b.cpuSecs, a.diskSecs+b.diskSecs, a.tcpSecs+b.tcpSecs
	a.synRetrans += b.synRetrans
	a.listenOverflows += b.listenOverflows
	a.newConns += b.newConns
	if b.Ceiling > 0 && (a.Ceiling == 0 || b.Ceiling < a.Ceiling) {
		a.Ceiling = b.Ceiling
	}
	a.Gap = a.Gap || b.Gap
	a.kinds |= b.kinds
	return a
}

// Buckets returns the buckets, oldest first; a stretch without samples
// has no bucket, and the bucket after it has Gap set.
func (t *Timeline) Buckets() []Bucket { return t.buckets }

// Width is the time a bucket covers.
func (t *Timeline) Width() time.Duration { return t.width }

// TopDropCPUs returns up to n CPUs that dropped the most over the whole
// timeline, most first (ties by CPU number).
func (t *Timeline) TopDropCPUs(n int) []int {
	cpus := make([]int, 0, len(t.cpuTotals))
	for c := range t.cpuTotals {
		cpus = append(cpus, c)
	}
	out, _ := tally.TopN(cpus, n, func(c int) uint64 { return t.cpuTotals[c] }, func(a, b int) bool { return a < b })
	return out
}

// DropCPUs is how many CPUs dropped at all.
func (t *Timeline) DropCPUs() int { return len(t.cpuTotals) }
