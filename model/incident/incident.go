package incident

import (
	"sort"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/knob"
	"github.com/tablefull/tablefull/model/verdict"
)

// Incident is what a recording tells, gathered frame by frame in one
// pass: the timeline for its charts and the facts its story is told
// from. Its memory does not grow with the recording's length or the
// host's CPUs beyond fixed bounds (TimelineBuckets, maxChanges, the kept
// episodes and kernel lines).
type Incident struct {
	Host model.Host
	// From and To are the first and last frame's times; Samples counts
	// the frames.
	From, To time.Time
	Samples  int
	// Interval is the sampling interval.
	Interval time.Duration
	Timeline Timeline
	// Drops totals drop and early_drop over the recording; PeakCount is
	// the highest count; Start the table at the first pin (or the first
	// tracked sample).
	Drops     uint64
	PeakCount uint64
	Start     model.Conntrack
	// End is the table at the last tracked sample.
	End model.Conntrack
	// FirstDrop and FirstPinned are when the table first dropped and
	// first pinned (zero: never). ClimbFrom is when the count began the
	// climb that ended in the first pin, at ClimbCount.
	FirstDrop, FirstPinned time.Time
	ClimbFrom              time.Time
	ClimbCount             uint64
	// Pinned is the total time at the cap.
	Pinned time.Duration
	// Episodes are the pinned episodes (the last 50); EpisodeCount all.
	Episodes     []diagnose.Episode
	EpisodeCount int
	// WhilePinned is the server's load over the pinned frames.
	WhilePinned Load
	// Held is how long each verdict held; Last the verdict itself the
	// last time it held (its evidence and the facts it cites).
	Held map[verdict.Kind]time.Duration
	// Together are the sets of verdicts that held at once (the first
	// MaxHeldSets); OtherHeld the time of frames whose set came later.
	Together  []HeldSet
	OtherHeld time.Duration
	Last      map[verdict.Kind]verdict.Verdict
	// Changes are the knob changes seen (at most 32, SkippedChanges
	// more); UnseenApplies the apply results no sample showed.
	Changes        []KnobChange
	SkippedChanges int
	UnseenApplies  []knob.Result
	// Deletions are the deletions of entries kept (at most 32,
	// SkippedDeletions more); DeletedEntries sums what all deleted.
	Deletions        []EntriesDeleted
	SkippedDeletions int
	DeletedEntries   uint64
	// Kernel are the kernel's table lines folded by text (the first 32
	// texts; KernelOther counts lines of further texts); Suppressed the
	// callbacks the kernel's rate limit suppressed.
	Kernel      []FoldedLine
	KernelLines int
	KernelOther int
	Suppressed  uint64
	// Census is the largest census recorded, if any.
	Census *model.Census
	// PeakWho is the probes' busiest window (the most new connections in
	// WhoWindow), over PeakWhoSecs, ending at PeakWhoAt; nil when the
	// probes never counted.
	PeakWho     *model.Who
	PeakWhoSecs float64
	PeakWhoAt   time.Time
	// Peak new-connection rate, and the hold and open connections then.
	PeakNewConnsPS float64
	PeakNewConnsAt time.Time
	PeakHold       uint64
	PeakOpen       uint64
	// PeakFill is what filled the table when its working set by class
	// (Little's law) was largest, at PeakFillAt; unknown when no frame
	// counted classes.
	PeakFill   diagnose.Fill
	PeakFillAt time.Time
	// PeakFillCount is the table's count then: the working set is a
	// projection of the rates, this is what the table held.
	PeakFillCount uint64
	// PeakDemand is the highest demand while pinned (a lower bound).
	PeakDemand   diagnose.Demand
	PeakDemandAt time.Time
	// Gaps counts the stretches the stream was down.
	Gaps int
	// FullNamespaces are the host's other namespaces found full (the
	// first MaxFullNamespaces; FullNamespacesOther counts the rest).
	FullNamespaces      []NSFull
	FullNamespacesOther int
	// Absent are the parts some frame of the recording lacked (not read
	// when it was recorded, not scraped).
	Absent model.Parts
	// Overall is the workload over every frame.
	Overall Overall

	watch     *changeWatch
	plan      planFrames
	fix       fixWatch
	episodes  *diagnose.Episodes
	everPin   bool
	prevPeak  uint64
	loadSecs  [3]float64 // the seconds each Load average is over: CPU, disks, TCP
	maxFolded int
}

// Load is the server's average load over some frames. Each average is
// over the frames that read its part; Absent are the parts some frame
// did not read (with all frames lacking one, its average is 0 and says
// nothing).
type Load struct {
	BusyPct, DiskUtilPct, DiskIOPS, SynRetransPS float64
	Absent                                       model.Parts
}

// Idle reports whether the load is what an idle server shows: CPU below
// IdleCPUPct and no disk near its limit (the verdicts' rule), both read.
func (l Load) Idle() bool {
	return !l.Absent.Has(model.PartCPU) && !l.Absent.Has(model.PartDisks) && l.BusyPct < diagnose.IdleCPUPct && l.DiskUtilPct < diagnose.DiskBoundPct/2
}

// FoldedLine is one kernel log text and how often it was logged.
type FoldedLine struct {
	Text        string
	NetNSName   string
	Count       int
	First, Last time.Time
}

// New starts an incident of host sampled every interval.
func New(h model.Host, interval time.Duration) *Incident {
	return &Incident{Host: h, Interval: interval, Held: map[verdict.Kind]time.Duration{}, Last: map[verdict.Kind]verdict.Verdict{}, watch: newChangeWatch(interval),
		episodes: diagnose.NewEpisodes(diagnose.KeptEpisodes), maxFolded: 32}
}

// Applied records an apply's (or undo's) read-back found in the recording.
func (in *Incident) Applied(at time.Time, results []knob.Result) { in.watch.applied(at, results) }

// climb follows the count up to the first pin: where the climb began
// and when the table first pinned.
func (in *Incident) climb(f diagnose.Frame) {
	s, c := f.Sample, f.Sample.Conntrack
	if in.everPin {
		return
	}
	if c.Peak <= in.prevPeak || in.ClimbFrom.IsZero() {
		in.ClimbFrom, in.ClimbCount = s.Time, c.Peak
	}
	in.prevPeak = c.Peak
	if f.Pinned {
		in.everPin, in.FirstPinned, in.Start = true, s.Time, c
	}
}

// loadWhilePinned folds a pinned interval of secs into the server's
// load while pinned, each part over the frames that read it.
func (in *Incident) loadWhilePinned(r model.Rates, secs float64) {
	l := &in.WhilePinned
	l.Absent |= r.Absent
	if r.Known(model.PartCPU) {
		fold(&in.loadSecs[0], secs, []*float64{&l.BusyPct}, r.CPUAll.Busy())
	}
	if r.Known(model.PartDisks) {
		fold(&in.loadSecs[1], secs, []*float64{&l.DiskUtilPct, &l.DiskIOPS}, r.MaxDiskUtil(), r.DiskIOPS())
	}
	if r.Known(model.PartTCP) {
		fold(&in.loadSecs[2], secs, []*float64{&l.SynRetransPS}, r.SynRetransPS)
	}
}

// Add folds one frame into the incident.
func (in *Incident) Add(f diagnose.Frame) {
	s, r := f.Sample, f.Rates
	if in.Samples == 0 {
		in.From = s.Time
	}
	in.Samples++
	in.To = s.Time
	in.Timeline.Add(f)
	in.watch.add(f)
	in.fix.add(f, len(in.watch.changes))
	in.plan.add(f)
	in.addFullNS(f)
	if f.Gap {
		in.Gaps++
	}
	c := s.Conntrack
	drops := r.Drops()
	in.Drops += drops
	in.PeakCount = max(in.PeakCount, c.Peak, c.Count)
	if c.Status == model.TableTracked {
		if in.Start.Status != model.TableTracked {
			in.Start = c
		}
		in.End = c
	}
	if drops > 0 && in.FirstDrop.IsZero() {
		in.FirstDrop = s.Time
	}
	in.episodes.Observe(s.Time, s.Interval, f.Pinned, drops, c.Max)
	in.climb(f)
	in.Absent |= s.Absent
	secs := r.Elapsed.Seconds()
	in.Overall.add(f, secs)
	held := f.HeldFor()
	if f.Pinned {
		in.Pinned += held
	}
	if f.Pinned && secs > 0 {
		in.loadWhilePinned(r, secs)
	}
	counted := map[verdict.Kind]bool{}
	var kinds []verdict.Kind
	for _, v := range f.Verdicts {
		if !counted[v.Kind] {
			in.Held[v.Kind] += held
			in.Last[v.Kind] = v
			kinds = append(kinds, v.Kind)
		}
		counted[v.Kind] = true
	}
	in.holdTogether(kinds, held)
	if secs > 0 && !in.fix.refilling() { // a refill after a raise is not the demand
		if f.Fill.Known() && r.Entries.Basis == model.BasisEvents && f.Fill.Outweighs(in.PeakFill) {
			in.PeakFill, in.PeakFillAt, in.PeakFillCount = f.Fill, s.Time, max(c.Count, c.Peak)
		}
		if f.Demand.AtLeast > in.PeakDemand.AtLeast {
			in.PeakDemand, in.PeakDemandAt = f.Demand, s.Time
		}
		if rate := f.Sustained().Total; rate > in.PeakNewConnsPS {
			in.PeakNewConnsPS, in.PeakNewConnsAt = rate, s.Time
			in.PeakHold, in.PeakOpen = c.TimeWaitHold, s.TCP.Established
		}
	}
	if opened := f.Who.Opened(); f.Who.On() && opened > 0 && opened > in.PeakWho.Opened() {
		in.PeakWho, in.PeakWhoSecs, in.PeakWhoAt = f.Who, f.WhoSecs, s.Time
	}
	in.kernel(s.Kernel)
	if cs := s.Census; cs != nil && cs.Error == "" && (in.Census == nil || cs.Total > in.Census.Total) {
		cp := *cs
		in.Census = &cp
	}
}

func (in *Incident) kernel(k model.KernelLog) {
	in.Suppressed += k.Suppressed
	for _, l := range k.Lines {
		in.KernelLines++
		found := false
		for i := range in.Kernel {
			if in.Kernel[i].Text == l.Text && in.Kernel[i].NetNSName == l.NetNSName {
				in.Kernel[i].Count++
				in.Kernel[i].Last = l.Time
				found = true
				break
			}
		}
		switch {
		case found:
		case len(in.Kernel) < in.maxFolded:
			in.Kernel = append(in.Kernel, FoldedLine{Text: l.Text, NetNSName: l.NetNSName, Count: 1, First: l.Time, Last: l.Time})
		default:
			in.KernelOther++
		}
	}
}

// Finish closes the incident after its last frame: the episodes, the
// windows of changes made near the end.
func (in *Incident) Finish() {
	in.Changes, in.UnseenApplies = in.watch.finish()
	in.SkippedChanges = in.watch.skipped
	in.Episodes = in.episodes.List()
	in.EpisodeCount = in.episodes.Begun()
}

// HeldKinds lists the verdicts that held at some time, most severe first.
func (in *Incident) HeldKinds() []verdict.Kind {
	ks := make([]verdict.Kind, 0, len(in.Held))
	for k := range in.Held {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return worse(ks[i], ks[j]) })
	return ks
}

// TimeToPin is how long the count took from the start of its climb to
// the first pin (0 if it never pinned).
func (in *Incident) TimeToPin() time.Duration {
	if in.FirstPinned.IsZero() || in.FirstPinned.Before(in.ClimbFrom) {
		return 0
	}
	return in.FirstPinned.Sub(in.ClimbFrom)
}
