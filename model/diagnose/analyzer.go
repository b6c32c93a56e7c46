package diagnose

import (
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/tally"
	"github.com/tablefull/tablefull/model/verdict"
)

// Frame is one analysed sample: the sample, the rates since the previous
// one and the verdicts, most severe first. It is what every view renders.
type Frame struct {
	Sample   model.Sample
	Rates    model.Rates
	Verdicts []verdict.Verdict
	// Pinned reports whether this interval was pinned at the cap.
	Pinned bool
	// Gap reports that samples are missing before this one (the stream
	// was down): more than 2.5 intervals passed since the previous one.
	Gap bool
	// CPUs and Disks count the sample's rows; they stay when the history
	// trims the rows (see HistoryRows).
	CPUs, Disks int
	// Fill is what fills the table, by class.
	Fill Fill
	// Demand is the new entries/s wanted while pinned (a lower bound).
	Demand Demand
	// sustained is the new entries/s over at least one sampling interval
	// ending here (see Sustained).
	sustained model.EntryRates
	// FullNS are the host's other namespaces at the cap or dropping.
	FullNS []model.FullNS
	// Who is the probes' counts summed over the trailing WhoWindow, over
	// WhoSecs seconds (nil: the probes are not asked for).
	Who     *model.Who
	WhoSecs float64
	// Suppressed is the kernel's "callbacks suppressed" counts from the
	// first sample up to this one (Analyzer.Suppressed as it stood here):
	// a frame shown in a replay says only what had come by its time.
	Suppressed uint64
}

// Verdict returns the most severe verdict.
func (f Frame) Verdict() verdict.Verdict {
	if len(f.Verdicts) == 0 {
		return verdict.Verdict{Kind: verdict.OK}
	}
	return f.Verdicts[0]
}

// Sustained is the new entries/s over at least one sampling interval
// ending at this frame: Rates.Entries unless the frame is a fast sample,
// whose fraction of a second is a burst, not a rate that a hold of many
// seconds keeps. What sizes (the demand, the fill, a plan's peak rate, the
// panel's new/s) reads it; totals over time read Rates. A frame no
// Analyzer measured a span for has its own rates.
func (f Frame) Sustained() model.EntryRates {
	if f.sustained.Known() {
		return f.sustained
	}
	return f.Rates.Entries
}

// HistoryFor is how many frames an Analyzer keeps to cover span at the
// given interval, never fewer than 3,600 (one hour at 1 s).
func HistoryFor(span, interval time.Duration) int {
	if interval <= 0 {
		return 3600
	}
	return max(3600, int(span/interval))
}

// Analyzer turns a sequence of samples into frames. Live collection,
// remote streams and replays all go through it, so they reach the same
// verdicts from the same samples.
type Analyzer struct {
	prev     *model.Sample
	frames   *tally.Ring[Frame]
	episodes *Episodes
	kernel   *tally.Ring[model.KernelLine]
	demand   *demandTracker
	span     spanTracker
	lastDrop time.Time
	// census is the newest census, for what stands in the table.
	census *model.Census
	// who sums the probes' counts over WhoWindow.
	who whoTracker
	// Suppressed totals the kernel's "callbacks suppressed" counts since
	// SuppressedSince, the first sample: the first read of the kernel log
	// counts its whole ring buffer, from before anyone watched, so its
	// count is not taken. Console and report mean the same by it.
	Suppressed      uint64
	SuppressedSince time.Time
}

// CensusFresh is how long a census stands for what is in the table.
const CensusFresh = time.Minute

// KeptEpisodes is how many pinned episodes an analyzer keeps.
const KeptEpisodes = 50

// NewAnalyzer keeps the last history frames, 50 episodes and 100 kernel
// log lines.
func NewAnalyzer(history int) *Analyzer {
	return &Analyzer{frames: tally.NewRing[Frame](history), episodes: NewEpisodes(KeptEpisodes), kernel: tally.NewRing[model.KernelLine](100),
		demand: newDemandTracker()}
}

// Add analyses s against the previous sample and returns its frame.
func (a *Analyzer) Add(s model.Sample) Frame {
	var r model.Rates
	if a.prev == nil {
		s.Kernel.Suppressed, a.SuppressedSince = 0, s.Time
	}
	if a.prev != nil {
		r = model.Delta(*a.prev, s)
	} else { // no rates yet: every CPU's row is there, at zero
		r = model.Rates{CPUAll: model.CPUUse{CPU: -1, Idle: 100}, Absent: s.Absent}
		r.CT, _ = model.CTDelta(model.CTStats{}, s.CTStats)
	}
	pinned := Pinned(s.Conntrack)
	a.episodes.Observe(s.Time, s.Interval, pinned, r.Drops(), s.Conntrack.Max)
	if cs := s.Census; cs != nil && cs.Error == "" {
		cp := *cs
		a.census = &cp
	}
	if a.census != nil && s.Time.Sub(a.census.At) > CensusFresh {
		a.census = nil
	}
	sized := a.span.over(s, r)
	f := Frame{Sample: s, Rates: r, Pinned: pinned, Fill: FillOf(s, sized, a.census), sustained: sized.Entries,
		CPUs: max(len(s.CPU), len(s.CTStats.PerCPU)), Disks: len(s.Disks)}
	f.Demand = a.demand.observe(f, sized)
	if pinned {
		f.Fill = f.Fill.WhilePinned(s, a.demand.classesBefore())
	}
	var prevNS *model.Namespaces
	if a.prev != nil {
		prevNS = a.prev.Namespaces
	}
	in := Inputs{Sample: s, Rates: r, Fill: f.Fill, Demand: f.Demand, RecentDrops: !a.lastDrop.IsZero() && s.Time.Sub(a.lastDrop) <= RetransLadder}
	in.FullNS, in.InsertNS = model.FullNamespaces(prevNS, s.Namespaces, s.Conntrack.Max)
	in.ChainNS = model.ChainsNamespaces(prevNS, s.Namespaces)
	if a.census != nil {
		in.Owners, in.Census = a.census.Owners, a.census
	}
	f.Who, f.WhoSecs = a.who.observe(s.Time, r.Elapsed.Seconds(), s.Who, r.CTTotal.Get(model.Drop), s.CTStats.Source != "")
	in.Who, in.WhoSecs = f.Who, f.WhoSecs
	if localDrops(in) {
		a.lastDrop = s.Time
	}
	if ep, ok := a.episodes.Current(); ok {
		in.Episode = &ep
	}
	f.FullNS = in.FullNS
	f.Verdicts = Judge(in)
	if a.prev != nil && s.Interval > 0 && s.Time.Sub(a.prev.Time) > s.Interval*5/2 {
		f.Gap = true
	}
	for _, l := range s.Kernel.Lines {
		a.kernel.Push(l)
	}
	a.Suppressed += s.Kernel.Suppressed
	f.Suppressed = a.Suppressed
	if last, ok := a.frames.Last(); ok { // only the newest frame keeps every row
		a.frames.Set(a.frames.Len()-1, compact(last))
	}
	a.frames.Push(f)
	a.prev = &s
	return f
}

// Frames is the bounded history, oldest first.
func (a *Analyzer) Frames() *tally.Ring[Frame] { return a.frames }

// Episodes returns the kept pinned episodes, oldest first.
func (a *Analyzer) Episodes() []Episode { return a.episodes.List() }

// EpisodesUpTo returns the episodes as they stood at the i-th kept frame
// (0 is the oldest): detected again from the kept frames up to it, so
// later episodes have not begun and the drops of the one under way are
// those counted so far. At the newest frame they are Episodes().
func (a *Analyzer) EpisodesUpTo(i int) []Episode {
	if i >= a.frames.Len()-1 {
		return a.Episodes()
	}
	eps := NewEpisodes(KeptEpisodes)
	for j := 0; j <= i; j++ {
		f := a.frames.At(j)
		s := f.Sample
		eps.Observe(s.Time, s.Interval, f.Pinned, f.Rates.Drops(), s.Conntrack.Max)
	}
	return eps.List()
}

// KernelLines returns the kept kernel log lines, oldest first.
func (a *Analyzer) KernelLines() []model.KernelLine {
	out := make([]model.KernelLine, a.kernel.Len())
	for i := range out {
		out[i] = a.kernel.At(i)
	}
	return out
}

// Frames is a run of frames, oldest first (a Ring of them).
type Frames interface {
	Len() int
	At(i int) Frame
}
