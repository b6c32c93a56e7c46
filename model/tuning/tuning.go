package tuning

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/safe"
	"github.com/tablefull/tablefull/model/units"
	"github.com/tablefull/tablefull/model/verdict"
)

// KnobSpec describes one knob.
type KnobSpec struct {
	Key string
	// Global knobs live in the init network namespace only: read-only in
	// a child namespace.
	Global bool
	// Module is true for a module parameter (persisted in modprobe.d).
	Module bool
	// Min and Max bound a single value; a port range is two values.
	Min, Max uint64
	Pair     bool
}

// Knobs are the knobs in the order a plan lists them.
var Knobs = []KnobSpec{
	{Key: knob.Max, Global: true, Min: 1, Max: math.MaxInt32},
	{Key: knob.Hashsize, Global: true, Module: true, Min: 1, Max: 1 << 30},
	{Key: knob.TimeWait, Min: 1, Max: 3600},
	{Key: knob.Somaxconn, Min: 1, Max: math.MaxInt32},
	{Key: knob.SynBacklog, Min: 1, Max: math.MaxInt32},
	{Key: knob.PortRange, Min: 1, Max: 65535, Pair: true},
	{Key: knob.TwReuse, Min: 0, Max: 2},
	{Key: knob.UDPTimeout, Min: 1, Max: 3600},
	{Key: knob.SynSent, Min: 1, Max: 3600},
	{Key: knob.SynRecv, Min: 1, Max: 3600},
	{Key: knob.LastAck, Min: 1, Max: 3600},
	{Key: knob.UDPStream, Min: 1, Max: 3600},
}

// Spec returns the knob called key.
func Spec(key string) (KnobSpec, bool) {
	for _, k := range Knobs {
		if k.Key == key {
			return k, true
		}
	}
	return KnobSpec{}, false
}

// ErrBadValue reports a value tablefull refuses to write.
var ErrBadValue = errors.New("bad value")

// ParseValue checks value for key and returns it normalised ("10240 65535"
// for a port range). Unknown keys, non-numbers, negatives, overflows and
// inverted or out-of-bounds ranges are errors; nothing is written.
func ParseValue(key, value string) (string, error) {
	spec, ok := Spec(key)
	if !ok {
		var keys []string
		for _, k := range Knobs {
			keys = append(keys, k.Key)
		}
		return "", fmt.Errorf("%w: unknown key %q (known: %s)", ErrBadValue, key, strings.Join(keys, ", "))
	}
	fields := strings.Fields(value)
	if spec.Pair {
		fields = strings.Fields(strings.NewReplacer(",", " ", "-", " - ").Replace(value))
		var nums []string
		for _, f := range fields {
			if f != "-" {
				nums = append(nums, f)
			}
		}
		if len(nums) != 2 || strings.Contains(value, "--") {
			return "", fmt.Errorf("%w: %s wants two ports, low and high: %q", ErrBadValue, key, value)
		}
		lo, err := parseBounded(key, nums[0], spec)
		if err != nil {
			return "", err
		}
		hi, err := parseBounded(key, nums[1], spec)
		if err != nil {
			return "", err
		}
		if lo >= hi {
			return "", fmt.Errorf("%w: %s range %d-%d is inverted or empty", ErrBadValue, key, lo, hi)
		}
		return fmt.Sprintf("%d %d", lo, hi), nil
	}
	if len(fields) != 1 {
		return "", fmt.Errorf("%w: %s wants one number: %q", ErrBadValue, key, value)
	}
	v, err := parseBounded(key, fields[0], spec)
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(v, 10), nil
}

func parseBounded(key, s string, spec KnobSpec) (uint64, error) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("%w: %s cannot be negative: %s", ErrBadValue, key, s)
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %s value %s overflows", ErrBadValue, key, s)
		}
		return 0, fmt.Errorf("%w: %s wants a number, not %q", ErrBadValue, key, s)
	}
	if v < spec.Min || v > spec.Max {
		return 0, fmt.Errorf("%w: %s value %d is outside %d…%d", ErrBadValue, key, v, spec.Min, spec.Max)
	}
	return v, nil
}

// Memory thresholds of a plan, as a share of MemTotal.
const (
	MemWarnPct   = 5.0
	MemRefusePct = 25.0
)

// FallbackEntryBytes is the size assumed per conntrack entry when the slab
// cannot be read: the write-up's "about 300 bytes", rounded up to the
// 320 B seen with extensions.
const FallbackEntryBytes = 320

// Inputs is what a plan is computed from.
type Inputs struct {
	// Current holds the current value of each knob that could be read.
	Current map[string]string
	// PeakRate is the highest new-connection rate observed (per second);
	// PeakCount the highest count; Established the open connections.
	PeakRate    float64
	PeakCount   uint64
	Established uint64
	// RateFrom says where PeakRate was measured when it is not the rate
	// the frame of now shows (the header's and the verdict's): "the peak
	// demand at 04:14:42", "the count's climb since the apply"; "" when it
	// is now's.
	RateFrom string
	// Kernel is the running kernel's release ("6.18.44").
	Kernel string
	// MemTotal in bytes; EntryBytes the slab object size (0: unknown).
	MemTotal   uint64
	EntryBytes uint64
	// Verdicts that hold now (LISTEN OVERFLOW, PORT EXHAUSTION pull in
	// their knobs).
	Verdicts []verdict.Kind
	// Fill is what filled the table when its working set by class was
	// largest (unknown without events); TopDest its heaviest destination.
	Fill    diagnose.Fill
	TopDest string
	// Census is the newest census measured (nil: none), for what holds a
	// table of standing connections.
	Census *model.Census
	// OtherEntries are the host's other namespaces' entries now: they
	// share the one hash the buckets size. Namespaces counts every
	// namespace read, this one with them (0: not read).
	OtherEntries uint64
	Namespaces   int
}

// NewInputs is what a plan is computed from: the knobs now, the
// host, the bytes per entry (0: unknown), the peak rate of new entries
// (or, while pinned, the demand) and peak count over measured, and the open connections and verdicts of
// now (the frame on screen, or the last one measured).
func NewInputs(current map[string]string, h model.Host, entryBytes uint64, measured diagnose.Frames, now diagnose.Frame) Inputs {
	in := Inputs{Current: current, Kernel: h.Kernel, MemTotal: h.MemTotal, EntryBytes: entryBytes,
		Established: now.Sample.TCP.Established}
	in.OtherEntries, _ = model.OtherEntries(now.Sample)
	if ns := now.Sample.Namespaces; ns != nil {
		in.Namespaces = 1 + len(ns.Rows) + ns.Others + ns.Unread
	}
	fill := func(f diagnose.Frame) {
		if f.Fill.Known() && f.Fill.Outweighs(in.Fill) {
			in.Fill, in.TopDest = f.Fill, ""
			if tops := f.Rates.Entries.TopDests; len(tops) > 0 {
				in.TopDest = safe.Text(tops[0].Key, 32)
			}
		}
	}
	var peakAt diagnose.Frame
	for i := range measured.Len() {
		f := measured.At(i)
		if f.Sample.Census != nil && f.Sample.Census.Error == "" {
			in.Census = f.Sample.Census
		}
		// While pinned what got in is the ceiling: the demand is the rate.
		if r := max(f.Sustained().Total, f.Demand.AtLeast); r > in.PeakRate {
			in.PeakRate, peakAt = r, f
		}
		in.PeakCount = max(in.PeakCount, f.Sample.Conntrack.Peak)
		fill(f)
	}
	if nowRate := max(now.Sustained().Total, now.Demand.AtLeast); in.PeakRate > nowRate && !peakAt.Sample.Time.IsZero() {
		what := "the peak rate of new entries"
		if peakAt.Demand.AtLeast > peakAt.Sustained().Total {
			what = "the peak demand"
		}
		in.RateFrom = fmt.Sprintf("%s, at %s (now %s/s)", what, peakAt.Sample.Time.Format("15:04:05"), units.Num(nowRate))
	}
	fill(now)
	if now.Sample.Census != nil && now.Sample.Census.Error == "" {
		in.Census = now.Sample.Census
	}
	for _, v := range now.Verdicts {
		in.Verdicts = append(in.Verdicts, v.Kind)
	}
	return in
}

// Change is one knob of a plan.
type Change struct {
	Key      string `json:"key"`
	Current  string `json:"current"`
	Proposed string `json:"proposed"`
	// Why is one line of arithmetic, its numbers facts (JSON: why, the
	// words, and why_facts).
	Why verdict.Clause `json:"-"`
}

// Plan is the proposed tuning and what it costs.
type Plan struct {
	Changes []Change `json:"changes"`
	// WorkingSet is the peak working set the proposal is sized for, over
	// the frames measured: MeasuredFor before now (0: now's frame alone).
	WorkingSet  uint64        `json:"working_set"`
	MeasuredFor time.Duration `json:"measured_for_ns,omitempty"`
	Cost        Cost          `json:"cost"`
	// FromHost are the global changes this tuner cannot write (it runs
	// in a child namespace): HostCommand applies them on the host.
	FromHost    []Change `json:"from_host,omitempty"`
	HostCommand string   `json:"host_command,omitempty"`
	// Notes say what the plan could not know (a demand that is a lower
	// bound) or what it was sized on (the last step's record).
	Notes []string `json:"notes,omitempty"`
	// Refusal says why nothing is proposed, or why applying it is
	// refused, while the table is pinned or dropping.
	Refusal string `json:"refusal,omitempty"`
	// FixElsewhere is where the fix is when the verdict's is not a knob
	// ("NAT PORTS: … in the ruleset"); "" otherwise.
	FixElsewhere string `json:"fix_elsewhere,omitempty"`
}

// Empty reports whether the plan changes nothing, here or from the host.
func (p Plan) Empty() bool { return len(p.Changes) == 0 && len(p.FromHost) == 0 }

// Cost is the kernel memory a table of Entries entries and Buckets
// buckets may take.
type Cost struct {
	Entries    uint64 `json:"entries"`
	Buckets    uint64 `json:"buckets"`
	EntryBytes uint64 `json:"entry_bytes"`
	// EntryBytesAssumed is set when the slab size was not readable and
	// FallbackEntryBytes was used.
	EntryBytesAssumed bool    `json:"entry_bytes_assumed"`
	Bytes             uint64  `json:"bytes"`
	PctOfRAM          float64 `json:"pct_of_ram"`
	// Namespaces is how many network namespaces the host was read to
	// have, this one with them (0: not read): the cap holds each
	// namespace's count on its own (__nf_conntrack_alloc), so every one
	// of them may fill to it.
	Namespaces int `json:"namespaces,omitempty"`
	// MemTotal is the RAM the percentages are of.
	MemTotal uint64 `json:"-"`
}

// WorstCase says what the table could take when every namespace fills
// to the cap, "" for a host of one namespace: "each of 24 namespaces may
// fill to the cap on its own: 24 × 8,192 entries × 256 B = 48 MiB at
// worst (0.3 % of RAM)".
func (c Cost) WorstCase() string {
	if c.Namespaces < 2 {
		return ""
	}
	worst := uint64(c.Namespaces)*c.Entries*c.EntryBytes + c.Buckets*8
	s := fmt.Sprintf("each of %s namespaces may fill to the cap on its own: %s × %s entries × %d B = %.1f MiB at worst",
		units.Int(uint64(c.Namespaces)), units.Int(uint64(c.Namespaces)), units.Int(c.Entries), c.EntryBytes, float64(worst)/(1<<20))
	if c.MemTotal > 0 {
		s += fmt.Sprintf(" (%.1f %% of RAM)", 100*float64(worst)/float64(c.MemTotal))
	}
	return s
}

// MiB is the cost in mebibytes.
func (c Cost) MiB() float64 { return float64(c.Bytes) / (1 << 20) }

// Level says whether a cost is fine, worth a warning, or refused.
func (c Cost) Level() verdict.Severity {
	switch {
	case c.PctOfRAM > MemRefusePct:
		return verdict.SevCrit
	case c.PctOfRAM > MemWarnPct:
		return verdict.SevWarn
	}
	return verdict.SevOK
}

// MemoryCost is entries × the slab object size + buckets × 8 bytes (one
// list head per bucket).
func MemoryCost(entries, buckets, entryBytes, memTotal uint64) Cost {
	c := Cost{Entries: entries, Buckets: buckets, EntryBytes: entryBytes, MemTotal: memTotal}
	if entryBytes == 0 {
		c.EntryBytes, c.EntryBytesAssumed = FallbackEntryBytes, true
	}
	c.Bytes = entries*c.EntryBytes + buckets*8
	if memTotal > 0 {
		c.PctOfRAM = 100 * float64(c.Bytes) / float64(memTotal)
	}
	return c
}

// NextPow2 is the smallest power of two ≥ n.
func NextPow2(n uint64) uint64 {
	if n <= 1 {
		return 1
	}
	return 1 << (64 - bits.LeadingZeros64(n-1))
}

// SortChanges orders changes as Knobs lists them.
func SortChanges(cs []Change) {
	idx := map[string]int{}
	for i, k := range Knobs {
		idx[k.Key] = i
	}
	sort.SliceStable(cs, func(i, j int) bool { return idx[cs[i].Key] < idx[cs[j].Key] })
}
