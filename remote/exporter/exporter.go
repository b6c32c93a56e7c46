// Package exporter is the Prometheus transport of tablefull's samples:
// it judges each sample with the same analyzer as the console and serves
// the numbers, the verdicts and what the fast sampling saw between two
// scrapes on /metrics.
package exporter

import (
	"io"
	"sync"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/model/incident"
	"github.com/tablefull/tablefull/model/verdict"
)

// Exporter holds what the samples said since it started; Observe feeds
// it, Collect (prometheus.Collector) reads it. It is safe for concurrent
// use: samples arrive on one goroutine, scrapes on others.
type Exporter struct {
	version string
	// Revision is the commit built, for tablefull_build_info ("" unknown).
	Revision string
	// PerCPU serves a series per CPU and counter beside their sums
	// (tablefull_conntrack_cpu_events_total): off by default, as their
	// number grows with the host's CPUs.
	PerCPU bool
	// Owners serves the owners' series (who holds and opens the table's
	// entries, and whose packets it drops): who talks to whom, for a
	// scraper that is not just anyone (Config.ownersServed).
	Owners bool
	// Journal is the deletions' journal followed for
	// tablefull_entries_deleted_total (nil: not served).
	Journal *Journal
	// Log, when set, is told when a part's tablefull_up goes to 0, and
	// why, and when it comes back.
	Log io.Writer

	mu sync.Mutex // guards every field below
	// parts says the parts' changes on Log.
	parts partsLog
	an    *diagnose.Analyzer
	// last is the newest frame; have reports that one arrived.
	last diagnose.Frame
	have bool
	// window holds the trailing span of frames the peak and the held
	// verdicts cover: no scrape changes it. verdictSeconds are the
	// seconds each verdict held since start.
	window         window
	verdictSeconds map[verdict.Kind]float64
	// Cumulative since start: seconds pinned, episodes begun, kernel
	// "table full" lines and callbacks the kernel suppressed.
	pinnedSeconds float64
	episodes      uint64
	lastEpisode   time.Time
	kernelLines   uint64
	suppressed    uint64
	// newEntries are the new entries per class counted from events since
	// start (rate × interval of each counted frame), lost the events lost.
	newEntries [model.NumClasses]float64
	lost       float64
	// evicted are the entries the kernel evicted per class since start
	// (Entries.Evicted), counted like newEntries.
	evicted [model.NumClasses]float64
	// evictedUnknown: the kernel's events cannot tell an eviction (before
	// 5.11), so the evicted series are not served, not served as 0.
	evictedUnknown bool
	// probesLost is what the eBPF probes could not count since start
	// (probesRead: they were read at least once).
	probesLost float64
	probesRead bool
	// owners are the probes' counts by owner since start; probesOn says
	// the probes counted the newest sample.
	owners   ownerCounters
	probesOn bool
	// streamErr is the feed's last error, cleared by the next sample.
	streamErr error
	at        time.Time
	// attribution is the newest census's owners and pressed listeners.
	attribution attribution
	// seq counts samples and failures: what a scrape reads changes only
	// when it does.
	seq uint64
	// host is the feed's, for the plan's memory; planner keeps the
	// press's frames and plan its newest plan (nil: none proposed).
	host    model.Host
	planner incident.Planner
	plan    *planNow
}

// New returns an exporter whose peak and held verdicts cover the
// trailing span (DefaultWindow when 0); version labels
// tablefull_build_info. It serves the owners' series: Run decides
// whether a listener's scrapers may see them.
func New(version string, span ...time.Duration) *Exporter {
	w := DefaultWindow
	if len(span) > 0 && span[0] > 0 {
		w = span[0]
	}
	return &Exporter{version: version, an: diagnose.NewAnalyzer(2), window: window{span: w}, verdictSeconds: map[verdict.Kind]float64{}, Owners: true,
		planner: incident.Planner{Quiet: w}}
}

// Window is the span the peak and the held verdicts cover.
func (e *Exporter) Window() time.Duration { return e.window.span }

// Observe judges one sample and adds it to the totals.
func (e *Exporter) Observe(s model.Sample) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.an.Add(s)
	held := f.HeldFor().Seconds()
	if f.Pinned {
		e.pinnedSeconds += held
	}
	if eps := e.an.Episodes(); len(eps) > 0 && eps[len(eps)-1].Start.After(e.lastEpisode) {
		e.episodes++
		e.lastEpisode = eps[len(eps)-1].Start
	}
	if r := f.Rates.Entries; r.Basis == model.BasisEvents {
		secs := f.Rates.Elapsed.Seconds()
		for i, v := range r.PerClass {
			e.newEntries[i] += v * secs
			e.evicted[i] += r.EvictedPS[i] * secs
		}
		e.evictedUnknown = r.EvictedUnknown
		e.lost += r.LostPS * secs
	}
	e.attribution.observe(s)
	if w := s.Who; w.On() { // the probes were loaded and read
		e.probesRead, e.probesLost = true, e.probesLost+float64(w.Lost)
	}
	e.owners.observe(s.Who, s.Time)
	e.probesOn = s.Who.On()
	e.kernelLines += uint64(len(s.Kernel.Lines))
	e.suppressed += s.Kernel.Suppressed
	kinds := map[verdict.Kind]bool{}
	for _, v := range f.Verdicts {
		if !kinds[v.Kind] {
			e.verdictSeconds[v.Kind] += held
		}
		kinds[v.Kind] = true
	}
	wf := windowFrame{at: s.Time, peak: max(s.Conntrack.Peak, s.Conntrack.Count), kinds: kinds}
	if f.Rates.Elapsed > 0 && len(f.Rates.CT) > 0 && s.CTStats.Reports(model.Drop) { // counted across the interval
		wf.dropped, wf.elapsed = f.Rates.CTTotal.Get(model.Drop)+f.Rates.CTTotal.Get(model.EarlyDrop), f.Rates.Elapsed
	}
	e.window.add(wf)
	e.observePlan(f)
	e.last, e.have, e.streamErr, e.at = f, true, nil, s.Time
	if e.Log != nil { // the parts are built for the log only where there is one
		e.parts.w = e.Log
		e.parts.observe(partsOf(s, f.Rates.Entries, true, true))
	}
	e.seq++
}

// seqNow is the count of samples and failures observed.
func (e *Exporter) seqNow() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seq
}

// Fail records that the feed failed (a remote agent disconnected); the
// stream part reads down until the next sample.
func (e *Exporter) Fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.streamErr = err
	if e.Log != nil {
		e.parts.w = e.Log
		e.parts.observe([]partUp{{"stream", false, err.Error()}})
	}
	e.seq++
}

// snapshot is what one scrape reports, taken under the lock. Taking it
// changes nothing: every scraper reads the same window.
type snapshot struct {
	frame                   diagnose.Frame
	have                    bool
	peak                    uint64
	pinnedSeconds           float64
	episodes                uint64
	kernelLines, suppressed uint64
	newEntries, evicted     [model.NumClasses]float64
	evictedUnknown          bool
	lost                    float64
	probesLost              float64
	probesRead              bool
	streamUp                bool
	at                      time.Time
	held                    map[verdict.Kind]bool
	// dropsPS is the table's drops per second over the window (the
	// fleet score's); dropsRead false where it could not be measured.
	dropsPS        float64
	dropsRead      bool
	verdictSeconds map[verdict.Kind]float64
	attribution    attribution
	owners         ownerCounters
	probesOn       bool
	plan           *planNow
}

func (e *Exporter) take() snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	peak, held := e.window.read()
	dropsPS, dropsRead := e.window.dropsPS()
	seconds := make(map[verdict.Kind]float64, len(e.verdictSeconds))
	for k, v := range e.verdictSeconds {
		seconds[k] = v
	}
	return snapshot{frame: e.last, have: e.have, peak: max(peak, e.last.Sample.Conntrack.Count),
		pinnedSeconds: e.pinnedSeconds, episodes: e.episodes, kernelLines: e.kernelLines,
		suppressed: e.suppressed, newEntries: e.newEntries, evicted: e.evicted, evictedUnknown: e.evictedUnknown, lost: e.lost, probesLost: e.probesLost, probesRead: e.probesRead, streamUp: e.have && e.streamErr == nil, at: e.at,
		held: held, dropsPS: dropsPS, dropsRead: dropsRead, verdictSeconds: seconds, attribution: e.attribution.fresh(e.at),
		owners: e.owners.copied(), probesOn: e.probesOn, plan: e.plan}
}
