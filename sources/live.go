package sources

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablefull/tablefull/model"
	"github.com/tablefull/tablefull/model/diagnose"
	"github.com/tablefull/tablefull/sources/counters"
	"github.com/tablefull/tablefull/sources/kernelfs"
)

// Live samples the local host every interval in the background and hands
// the samples out in order through Next. It is the console's local feed.
type Live struct {
	c        *Collector
	interval atomic.Int64
	out      chan model.Sample
	stop     chan struct{}
	wake     chan struct{}
	once     sync.Once
	done     chan struct{}
	census   censusRunner
	// period is the ticker's period now: pollEvery(interval) while the
	// count is read at FastRate, the interval otherwise (diagnose.FastSampling).
	period atomic.Int64
	// holds are the classes' holds the last sample read, for the census's
	// idle count and the entries that keep longer timeouts.
	holds atomic.Pointer[model.ClassCounts]
	// quiet, when set, is how often a whole sample is read while fast
	// sampling is off (SetQuiet).
	quiet atomic.Int64
}

// SetQuiet makes the feed read a whole sample only every d while
// diagnose.FastSampling is off (the table far from its cap, dropping
// nothing), and only glance at the count and the drop counters every
// interval in between (Collector.SampleCounts): a glance that says the full
// rate is due takes the sample at once. The exporter runs quiet; the
// console does not (0: every interval).
func (l *Live) SetQuiet(d time.Duration) {
	l.quiet.Store(int64(d))
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// StartLive starts sampling this host (the roots') every interval: a
// new collector, paced by NewLive.
func StartLive(roots kernelfs.Roots, interval time.Duration) (*Live, error) {
	c, err := NewCollector(roots)
	if err != nil {
		return nil, err
	}
	return NewLive(c, interval), nil
}

// NewLive starts sampling c every interval; the first sample is taken at
// once. Between samples it reads the count at FastRate or faster for
// each sample's peak.
func NewLive(c *Collector, interval time.Duration) *Live {
	l := &Live{c: c, out: make(chan model.Sample, 16), stop: make(chan struct{}),
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.interval.Store(int64(interval))
	l.census.dump = func() (model.Census, error) { return TakeCensus(c.procRoot, l.holds.Load()) }
	c.OpenPeak()
	c.WatchFlushes()
	l.period.Store(int64(pollEvery(interval)))
	go l.run()
	return l
}

// pollEvery is the tick for interval d: FastRate, or the largest divisor
// of both (250 ms → 50 ms) so samples fall on ticks; at least 10 ms.
func pollEvery(d time.Duration) time.Duration {
	a, b := d, counters.FastRate
	for b != 0 {
		a, b = b, a%b
	}
	if a < 10*time.Millisecond {
		return counters.FastRate
	}
	return a
}

// Host describes the local host.
func (l *Live) Host() model.Host { return l.c.Host() }

// SetInterval changes the sampling interval from the next sample on.
func (l *Live) SetInterval(d time.Duration) {
	l.interval.Store(int64(d))
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// SetCensus turns periodic table censuses on or off (see CensusEvery).
// Each finished census rides on the next sample.
func (l *Live) SetCensus(on bool) { l.census.set(on) }

// Next blocks until the next sample; after Stop it returns
// model.ErrFeedStopped.
func (l *Live) Next() (model.Sample, error) {
	s, ok := <-l.out
	if !ok {
		return model.Sample{}, model.ErrFeedStopped
	}
	return s, nil
}

// Stop ends sampling and releases the collector.
func (l *Live) Stop() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		l.c.Close()
	})
}

// run is the only timer of the feed: each tick polls the peak, and the
// tick at or after each sample's due time takes the sample instead. One
// ticker, not one per job, because on a small VM every wake-up of a Go
// process costs more CPU than the work it does. After each sample the
// ticker runs at FastRate only while diagnose.FastSampling says a peak
// between samples can matter, and once per interval otherwise.
func (l *Live) run() {
	defer close(l.done)
	defer close(l.out)
	d := time.Duration(l.interval.Load())
	last := time.Now()
	prev := l.emit(last, d)
	l.c.events.Set(last, diagnose.FastSampling(prev, prev))
	l.c.who.Set(last, diagnose.FastSampling(prev, prev))
	next := last.Add(d)
	t := newPace(time.Duration(l.period.Load()))
	defer t.Stop()
	fast, dropped := true, false
	setPeriod := func() {
		p := d
		if fast {
			p = pollEvery(d)
		}
		if time.Duration(l.period.Load()) != p { // same period: keep the phase
			l.period.Store(int64(p))
			t.Reset(p)
		}
	}
	// step is the time to the next whole sample: the interval, or the
	// quiet period while fast sampling is off.
	step := func() time.Duration {
		if q := time.Duration(l.quiet.Load()); q > d && !fast {
			return q
		}
		return d
	}
	for {
		select {
		case <-l.stop:
			return
		case <-l.wake:
			d = time.Duration(l.interval.Load())
			next = last.Add(step())
			setPeriod()
		case now := <-t.C():
			// The tick nearest the due time takes the sample: a tick a
			// little early (the last one was delivered late) must not push
			// the sample a whole period on.
			early := now.Before(next.Add(-time.Duration(l.period.Load()) / 2))
			switch {
			case early && fast:
				if !l.firstDrop(prev, dropped) {
					continue // a glance at the count, which a sample tick needs not: the sample reads it
				}
			case early && (l.quiet.Load() == 0 || !diagnose.FastSampling(prev, l.c.SampleCounts())):
				continue // quiet, and still far from the cap: the rest waits
			}
			s := l.emit(now, now.Sub(last))
			dropped = s.CTStats.Total(model.Drop) > prev.CTStats.Total(model.Drop)
			fast = diagnose.FastSampling(prev, s)
			events := fast // ctnetlink events count this namespace only
			fast = fast || diagnose.NamespacesNearCap(s)
			prev, last = s, now
			if next = next.Add(step()); early || !next.After(now) { // fell behind: skip, do not burst
				next = now.Add(step())
			}
			setPeriod()
			// Events follow the same rule, after the ticker: subscribing
			// takes a few system calls.
			l.c.events.Set(now, events)
			l.c.who.Set(now, events)
			l.census.setAuto(l.c.events.On())
		}
	}
}

// emit sends a sample, dropping the oldest queued one if the reader is
// slow, so memory stays bounded and the newest data is never lost. It
// returns the sample.
func (l *Live) emit(now time.Time, interval time.Duration) model.Sample {
	s := l.c.Sample(now, interval)
	holds := s.Conntrack.Holds
	l.holds.Store(&holds)
	s.Census = l.census.poll(now)
	s.Census.NamePods(l.c.pods.Of) // the rest of the sample was named as it was read
	for {
		select {
		case l.out <- s:
			return s
		case <-l.stop:
			return s
		default:
			select {
			case <-l.out:
			default:
			}
		}
	}
}

// firstDrop glances at the count between samples (PollPeak) and reports
// whether the table has just begun to drop: the count at its cap, the
// last sample's interval dropped nothing, and the drop counter rose since.
// Then the sample is taken at this glance, not at the interval's end: the
// first dropped packet reaches the screen within one fast tick. The
// counters (a row per CPU) are read only at the cap and until a sample
// says drops.
func (l *Live) firstDrop(prev model.Sample, dropped bool) bool {
	n, ok := l.c.PollPeak()
	c := prev.Conntrack
	if !ok || dropped || c.Status != model.TableTracked || c.Max == 0 || n+n/50 < c.Max {
		return false
	}
	return l.c.SampleCounts().CTStats.Total(model.Drop) > prev.CTStats.Total(model.Drop)
}
